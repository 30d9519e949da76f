// The schema lists of every PyTorch version jitctl knows (testdata/schemas/schemas_2.N.txt, each
// `str(s)` for every s in that version's torch._C._jit_get_all_schemas()): each parses and prints
// back as that version printed it, the registry of a version holds exactly its list in its order,
// and version selection picks the newest known list not newer than the one asked for.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/ops/schema.h"
#include "lib/ops/schema_registry.h"
#include "lib/ops/operator_versions.h"

using namespace jitctl;

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    if (nl != 0) lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return lines;
}

// The schemas jitctl's parser refuses (types no archive's code can reach), which the registry
// leaves out.
const std::set<std::string_view> kUnparsed = {"cuda::_set_device", "cuda::_exchange_device", "cuda::_maybe_exchange_device",
                                              "prim::awaitable_nowait", "prim::awaitable_wait",
                                              "aten::sym_is_contiguous"};

std::string_view op_name(std::string_view line) { return line.substr(0, line.find_first_of(".(")); }

}  // namespace

TEST_CASE("schema versions: every 2.x schema prints back exactly as that PyTorch printed it") {
  for (auto [version, text, count] : {std::tuple{"2.0", embedded_schemas_2_0_text(), size_t{4240}},
                                      std::tuple{"2.4", embedded_schemas_2_4_text(), size_t{4358}},
                                      std::tuple{"2.15", embedded_schemas_2_15_text(), size_t{4415}}}) {
    CAPTURE(version);
    const auto lines = lines_of(text);
    CHECK(lines.size() == count);
    size_t mismatches = 0;
    for (std::string_view line : lines) {
      std::string printed;
      try {
        printed = parse_schema(line).str();
      } catch (const Error& e) {
        if (kUnparsed.count(op_name(line))) {
          CHECK(SchemaRegistry::for_version(version).overloads(op_name(line)).empty());
          continue;
        }
        printed = std::string("error: ") + e.what();
      }
      if (printed != line && ++mismatches <= 10) CHECK(printed == line);
    }
    CHECK(mismatches == 0);
    const SchemaRegistry& reg = SchemaRegistry::for_version(version);
    CHECK(reg.size() == count);
    CHECK(reg.version() == version);
    // The registry's order per operator is the file's.
    size_t checked = 0;
    for (std::string_view name : reg.names()) {
      if (kUnparsed.count(name)) continue;
      size_t i = 0;
      for (std::string_view line : lines) {
        if (line.substr(0, name.size()) != name || (line[name.size()] != '.' && line[name.size()] != '(')) continue;
        REQUIRE(i < reg.overloads(name).size());
        CHECK(reg.overloads(name)[i].str() == line);
        ++i;
        ++checked;
      }
      CHECK(i == reg.overloads(name).size());
      if (checked > 400) break;  // a sample keeps the test quick
    }
  }
}

TEST_CASE("schema versions: which list a version gets") {
  CHECK(SchemaRegistry::known_version("1.13") == "1.13");
  CHECK(SchemaRegistry::known_version("1.10") == "1.13");  // older archives: the oldest list there is
  CHECK(SchemaRegistry::known_version("2.0") == "2.0");
  CHECK(SchemaRegistry::known_version("2.3") == "2.0");
  CHECK(SchemaRegistry::known_version("2.4") == "2.4");
  CHECK(SchemaRegistry::known_version("2.9.1") == "2.4");
  CHECK(SchemaRegistry::known_version("2.15") == "2.15");
  CHECK(SchemaRegistry::known_version("3.1") == "2.15");
  CHECK_THROWS_AS(SchemaRegistry::known_version("two"), InvalidInput);
  CHECK_THROWS_AS(SchemaRegistry::known_version("2"), InvalidInput);

  // 2.x-only operators exist only in 2.x lists; trailing defaults differ between versions.
  CHECK(SchemaRegistry::for_version("1.13").overloads("aten::scaled_dot_product_attention").empty());
  const FunctionSchema* s20 = SchemaRegistry::for_version("2.0").find("aten::scaled_dot_product_attention");
  REQUIRE(s20);
  CHECK(s20->arguments.size() == 6);   // no scale yet
  const FunctionSchema* s24 = SchemaRegistry::for_version("2.4").find("aten::scaled_dot_product_attention");
  const FunctionSchema* s215 = SchemaRegistry::for_version("2.15").find("aten::scaled_dot_product_attention");
  REQUIRE(s24);
  REQUIRE(s215);
  CHECK(s24->arguments.size() == 7);   // ..., *, float? scale=None
  CHECK(s215->arguments.size() == 8);  // ..., bool enable_gqa=False

  // The active list: 1.13 by default, the scope's while it lives, nested scopes restore.
  CHECK(active_schema_version() == "1.13");
  {
    ScopedSchemaVersion a("2.15");
    CHECK(active_schema_version() == "2.15");
    CHECK(SchemaRegistry::builtin().find("aten::scaled_dot_product_attention") == s215);
    {
      ScopedSchemaVersion b("2.4");
      CHECK(SchemaRegistry::builtin().find("aten::scaled_dot_product_attention") == s24);
    }
    CHECK(active_schema_version() == "2.15");
  }
  CHECK(active_schema_version() == "1.13");
  CHECK(SchemaRegistry::builtin().size() == 4165);
}

TEST_CASE("upgraders: which operator calls an archive of a given version gets upgraded") {
  // PyTorch 1.13's table (testdata/upgraders/version_map.txt).
  REQUIRE(find_upgrader("aten::div.Tensor", 3) != nullptr);
  CHECK(find_upgrader("aten::div.Tensor", 3)->upgrader == "div_Tensor_0_3");
  CHECK(find_upgrader("aten::div.Tensor", 4) == nullptr);
  CHECK(find_upgrader("aten::full", 4)->upgrader == "full_0_4");
  CHECK(find_upgrader("aten::full", 5) == nullptr);
  CHECK(find_upgrader("aten::linspace", 7)->upgrader == "linspace_0_7");
  CHECK(find_upgrader("aten::logspace", 8)->upgrader == "logspace_0_8");
  CHECK(find_upgrader("aten::gelu", 9)->upgrader == "gelu_0_9");
  CHECK(find_upgrader("aten::gelu", 10) == nullptr);
  CHECK(find_upgrader("aten::add.Tensor", 0) == nullptr);

  // The old schemas are candidates only while compiling code of an older version.
  CHECK(historic_overloads("aten::linspace").empty());
  {
    ScopedSchemaVersion v("1.13", 7);
    const auto old = historic_overloads("aten::linspace");
    REQUIRE(old.size() == 2);  // linspace and linspace.out
    CHECK(old[1]->overload_name == "out");
    CHECK(old[0]->str() == "aten::linspace(Scalar start, Scalar end, int? steps=None, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor");
    CHECK(historic_overloads("aten::div").empty());  // changed at 4: current for a version-7 archive
  }
  {
    ScopedSchemaVersion v("1.13", 10);
    CHECK(historic_overloads("aten::gelu").empty());
  }
}
