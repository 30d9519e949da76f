// Fuzz target: the whole path of `info`, `dump-graph` and `dump-code` on archive bytes: the
// archive summary, then load (code imported, data.pkl unpickled), and for every method of the
// module's class its graph (text, dot, JSON), its inlined graph and its code, then every code
// record as `dump-code --all` prints them.
#include <memory>
#include <string>

#include "lib/frontend/graph_function.h"
#include "lib/ir/graph_dot.h"
#include "lib/ir/graph_json.h"
#include "lib/serialization/code_files.h"
#include "lib/serialization/load_module.h"
#include "lib/serialization/module_info.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = MappedFile::from_bytes(std::string(fuzz::as_text(data, size)), "fuzz.pt");
  fuzz::expect_clean("load_print", [&] { inspect_archive(*Archive::open(ZipReader::open(file))); });
  LoadedModule m;
  bool loaded = false;
  fuzz::expect_clean("load_print", [&] {
    m = load_module(file);
    loaded = true;
  });
  if (!loaded) return 0;
  fuzz::expect_clean("load_print", [&] { fuzz::touch(m.root); });
  std::vector<std::string> methods;
  if (auto cls = m.cu->find_class(m.class_name))
    for (const auto& sig : cls->methods()) methods.push_back(sig.name);
  for (const auto& method : methods) {
    fuzz::expect_clean("load_print", [&] {
      GraphFunction* f = m.cu->graph_function(m.class_name, method);
      if (!f) return;
      const auto& g = f->graph();
      g->str();
      graph_to_dot(*g);
      graph_to_json(*g);
      f->inlined_graph()->str();
    });
    fuzz::expect_clean("load_print", [&] { print_method_code(m, method); });
  }
  fuzz::expect_clean("load_print", [&] { print_code_files(m); });
  return 0;
}
