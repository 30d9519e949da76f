#include <doctest/doctest.h>

#include "lib/archive/archive.h"
#include "lib/archive/pickler.h"
#include "lib/serialization/read_source_map.h"
#include "tests/support/error_of.h"

using namespace jitctl;

namespace {

IValue tuple(std::vector<IValue> items) {
  auto t = std::make_shared<TupleData>();
  t->items = std::move(items);
  return IValue(t);
}
IValue ints(std::vector<int64_t> xs) {
  auto l = std::make_shared<ListData>();
  for (auto x : xs) l->items.emplace_back(x);
  return IValue(l);
}

}  // namespace

TEST_CASE("source maps: printed-code offsets to the original file:line:col") {
  // The string-table layout PyTorch 1.10+ writes: (tag, strings, ((offset, (source, start, end), tag), ...)).
  auto table = tuple({IValue(""), IValue("    def forward(self, x):\n"), IValue("        return x + 1\n"),
                      IValue("model.py")});
  auto source = tuple({ints({1, 2, 0}), IValue(int64_t(3)), IValue(int64_t(40))});
  auto empty = tuple({ints({}), IValue(int64_t(0)), IValue(int64_t(0))});
  auto records = tuple({
      tuple({IValue(int64_t(0)), tuple({empty, IValue(int64_t(0)), IValue(int64_t(0))}), IValue(int64_t(0))}),
      tuple({IValue(int64_t(100)), tuple({source, IValue(int64_t(4)), IValue(int64_t(20))}), IValue(int64_t(1))}),
      tuple({IValue(int64_t(150)), tuple({source, IValue(int64_t(42)), IValue(int64_t(50))}), IValue(int64_t(2))}),
  });
  const std::string bytes = pickle(tuple({IValue("FORMAT_WITH_STRING_TABLE"), table, records}), {});
  const SourceMap map = read_source_map(bytes, "x.debug_pkl");
  CHECK(map.size() == 3);
  CHECK(map.location_for(5)->str() == ":0:0");
  CHECK(map.location_for(100)->str() == "model.py:40:4");
  CHECK(map.location_for(149)->str() == "model.py:40:4");
  CHECK(map.location_for(150)->str() == "model.py:41:16");  // offset 42: line 2, column 16
  CHECK(test::error_of([] { read_source_map(pickle(IValue(int64_t(3)), {}), "bad.debug_pkl"); }).find("bad.debug_pkl") !=
        std::string::npos);
}

TEST_CASE("source maps of a corpus archive give the locations PyTorch prints") {
  // testdata/golden/control_flow_scripted/graph.txt: "%steps.1 : int = prim::Constant[value=0]()
  // # testdata/gen/make_corpus.py:290:16", generated from printed code at offset 366.
  auto a = Archive::open(std::string(JITCTL_SOURCE_ROOT) + "/testdata/models/control_flow_scripted.pt");
  const auto map = read_source_map(a->read("code/__torch__.py.debug_pkl"), "debug_pkl");
  CHECK(map.location_for(366)->str() == "testdata/gen/make_corpus.py:290:16");
  CHECK(map.location_for(0)->str() == ":0:0");
}
