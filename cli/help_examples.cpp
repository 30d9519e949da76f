// Examples shown at the end of each subcommand's --help (cli/conventions.h). A command without an
// entry here may set its own footer; tests/corpus/test_cli.cpp fails for one that has neither.
#include <map>

#include "cli/conventions.h"

namespace jitctl::cli {

const std::vector<std::string>& help_examples(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> examples = {
      {"info", {"jitctl info model.pt", "jitctl info --format json model.pt | jq .total_parameters"}},
      {"dump-graph",
       {"jitctl graph model.pt", "jitctl graph model.pt --method encode --inline",
        "jitctl graph model.pt --format dot | dot -Tsvg > graph.svg"}},
      {"dump-code", {"jitctl code model.pt", "jitctl code model.pt --all"}},
      {"run",
       {"jitctl run model.pt --input-spec 'float32[1,3,224,224]'",
        "jitctl run model.pt --inputs x.pt -o y.pt",
        "jitctl run model.pt --method describe --input-spec '\"hello\"'",
        "jitctl run model.pt --input-spec 'float32[2,4]' 3 --format json",
        "jitctl run model.pt --describe-inputs",
        "jitctl run model.pt --inputs x.pt --device cuda -o y.pt"}},
      {"optimize", {"jitctl optimize model.pt -o model.opt.pt", "jitctl optimize model.pt -o out.pt --passes none",
                    "jitctl optimize --list-passes"}},
      {"bench-threads",
       {"jitctl bench model.pt --input-spec 'float32[1,3,224,224]' --threads 1,2",
        "jitctl bench model.pt --inputs x.pt --threads sweep --format json",
        "jitctl bench model.pt --input-spec 'float32[32,3,224,224]' --device cuda"}},
      {"parallel-info", {"jitctl parallel-info", "OMP_NUM_THREADS=2 jitctl parallel-info"}},
      {"check-trace", {"jitctl check-trace model.pt --inputs a.pt --inputs b.pt", "jitctl check-trace model.pt --inputs a.pt --inputs b.pt --device cuda"}},
      {"freeze", {"jitctl freeze model.pt -o frozen.pt"}},
      {"diff", {"jitctl diff old.pt new.pt"}},
      {"help", {"jitctl help run"}},
      {"completion",
       {"source <(jitctl completion bash)", "jitctl completion zsh > ~/.zfunc/_jitctl"}},
  };
  static const std::vector<std::string> none;
  const auto it = examples.find(command);
  return it == examples.end() ? none : it->second;
}

}  // namespace jitctl::cli
