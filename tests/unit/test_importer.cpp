#include <doctest/doctest.h>

#include <filesystem>

#include "lib/archive/archive.h"
#include "lib/serialization/class_outline.h"
#include "lib/frontend/importer.h"
#include "lib/serialization/import_code.h"
#include "tests/support/error_of.h"

using namespace jitctl;
namespace fs = std::filesystem;

TEST_CASE("every class of every corpus archive imports, as its outline declares it") {
  size_t archives = 0, classes = 0;
  for (const char* dir : {"models", "models_torch2"}) {
    for (const auto& e : fs::directory_iterator(fs::path(JITCTL_SOURCE_ROOT) / "testdata" / dir)) {
      const std::string p = e.path().string();
      if (e.path().extension() != ".pt" || p.find(".in") != std::string::npos) continue;
      CAPTURE(p);
      auto a = Archive::open(p);
      auto cu = import_code(*a);
      CodeOutline outline;
      for (const auto& f : cu->files()) outline_code_file(f->text, f->record, f->where, outline);
      for (const auto& [name, cls] : outline.classes) {
        CAPTURE(name);
        TypePtr t = cu->find_type(name);
        REQUIRE(t);
        ++classes;
        if (auto* c = t->cast<ClassType>()) {
          CHECK(c->is_module_class() == cls.is_module());
          CHECK(c->attributes().size() == cls.attributes.size());
          CHECK(c->methods().size() == cls.methods.size());
          for (const auto& p : cls.parameters)
            if (auto slot = c->find_attribute_slot(p)) CHECK(c->attributes()[*slot].kind == ClassType::AttributeKind::Parameter);
          for (const auto& m : cls.methods) CHECK(cu->find_method(name, m));
        }
      }
      ++archives;
    }
  }
  CHECK(archives >= 55);
  MESSAGE("imported ", classes, " classes from ", archives, " archives");
}
