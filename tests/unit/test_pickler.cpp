#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>

#include "lib/archive/pickler.h"
#include "lib/archive/torch_save.h"
#include "lib/archive/unpickler.h"
#include "lib/core/enum_value.h"
#include "lib/core/error.h"

using namespace jitctl;

namespace {

Tensor filled(DType dt, std::vector<int64_t> sizes, uint8_t seed) {
  Tensor t = Tensor::empty(dt, std::move(sizes));
  auto* p = static_cast<uint8_t*>(t.mutable_data());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<uint8_t>(seed + i * 7);
  return t;
}

IValue sample_tree(Tensor& base) {
  base = filled(DType::Float32, {4, 3}, 1);
  // A transposed view of the same storage, written once and rebuilt as a view.
  Tensor view = Tensor::view_of(base.storage(), DType::Float32, 1, {3, 2}, {1, 3}, "view");
  auto list = std::make_shared<ListData>();
  list->items = {IValue(int64_t(1)), IValue(int64_t(-70000)), IValue(int64_t(1) << 40)};
  auto dict = std::make_shared<DictData>();
  dict->set(IValue("x"), IValue(base));
  dict->set(IValue("y"), IValue(2.5));
  dict->set(IValue(int64_t(3)), IValue());
  auto inner = std::make_shared<TupleData>();
  inner->items = {IValue(true), IValue("text"), IValue(std::complex<double>(1, -2)), IValue(*Device::parse("cpu"))};
  auto top = std::make_shared<TupleData>();
  top->items = {IValue(base), IValue(view), IValue(list), IValue(dict), IValue(inner), IValue(filled(DType::Int64, {}, 3)),
                IValue(filled(DType::Bool, {0}, 0))};
  return IValue(top);
}

}  // namespace

TEST_CASE("pickles round-trip through the unpickler with sharing intact") {
  std::vector<std::shared_ptr<Storage>> written;
  PickleOptions po;
  po.storage_key = [&](const std::shared_ptr<Storage>& s, DType) {
    written.push_back(s);
    return std::to_string(written.size() - 1);
  };
  Tensor base;
  const std::string bytes = pickle(sample_tree(base), po);
  CHECK(written.size() == 3);  // base+view share one storage

  UnpickleOptions uo;
  uo.record = "roundtrip";
  uo.load_storage = [&](const std::string& key, const std::string&, DType, int64_t) { return written.at(std::stoul(key)); };
  auto t = unpickle(bytes, uo).to_tuple()->items;
  REQUIRE(t.size() == 7);
  const auto& b = t[0].to_tensor();
  const auto& v = t[1].to_tensor();
  CHECK(b.sizes() == std::vector<int64_t>{4, 3});
  CHECK(v.strides() == std::vector<int64_t>{1, 3});
  CHECK(v.storage_offset() == 1);
  CHECK(b.storage() == v.storage());
  CHECK(t[3].to_dict()->find(IValue("x"))->to_tensor().same(b));  // the same tensor, not a copy
  const auto& l = t[2].to_list()->items;
  CHECK(l[1].to_int() == -70000);
  CHECK(l[2].to_int() == (int64_t(1) << 40));
  CHECK(t[3].to_dict()->find(IValue("y"))->to_double() == 2.5);
  CHECK(t[3].to_dict()->find(IValue(int64_t(3)))->is_none());
  const auto& in = t[4].to_tuple()->items;
  CHECK(in[1].to_string() == "text");
  CHECK(in[2].to_complex() == std::complex<double>(1, -2));
  CHECK(in[3].to_device().str() == "cpu");
  CHECK(t[5].to_tensor().dim() == 0);
  CHECK(t[6].to_tensor().numel() == 0);
}

TEST_CASE("the TorchScript dialect writes typed lists and objects as torch.jit.save does") {
  auto ints = std::make_shared<ListData>();
  ints->items = {IValue(int64_t(1)), IValue(int64_t(2))};
  ints->elem_type = "int";
  auto strs = std::make_shared<ListData>();
  strs->items = {IValue("a")};
  strs->elem_type = "str";
  auto obj = std::make_shared<ObjectData>();
  obj->type_name = "__torch__.torch.nn.modules.linear.Linear";
  obj->attrs = {{"training", IValue(false)}, {"sizes", IValue(ints)}, {"names", IValue(strs)}};
  PickleOptions po;
  po.dialect = PickleOptions::Dialect::TorchScript;
  const std::string bytes = pickle(IValue(obj), po);
  CHECK(bytes.find("torch.jit._pickle\nbuild_intlist\n") != std::string::npos);
  CHECK(bytes.find("restore_type_tag") != std::string::npos);
  CHECK(bytes.find("__torch__.torch.nn.modules.linear\nLinear\n") != std::string::npos);
  UnpickleOptions uo;
  uo.allow_torchscript_classes = true;
  auto back = unpickle(bytes, uo).to_object();
  CHECK(back->type_name == obj->type_name);
  CHECK(back->attr("sizes")->to_list()->elem_type == "int");
  CHECK(back->attr("names")->to_list()->elem_type == "str");
  CHECK_FALSE(back->attr("training")->to_bool());
  PickleOptions plain;
  CHECK_THROWS_AS(pickle(IValue(obj), plain), Error);  // torch.save files hold no TorchScript objects
}

TEST_CASE("torch.save files are written atomically and read back") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "jitctl_test_pickler";
  fs::create_directories(dir);
  const std::string path = (dir / "out.pt").string();
  Tensor base;
  save_torch_save(path, sample_tree(base));
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string()[0] != '.');  // no temporaries left
  auto t = load_torch_save(path).to_tuple()->items;
  const auto& b = t[0].to_tensor();
  REQUIRE(b.nbytes() == base.nbytes());
  CHECK(std::memcmp(b.data(), base.data(), base.nbytes()) == 0);
  CHECK(b.storage() == t[1].to_tensor().storage());
  fs::remove_all(dir);
}

TEST_CASE("Enum members are written as torch.jit.save writes them: class, value, REDUCE") {
  auto obj = std::make_shared<ObjectData>();
  obj->type_name = "__torch__.M";
  obj->attrs = {{"fmt", make_enum_value("__torch__.timm.layers.format.Format", "NLC", IValue("NLC"))},
                {"scale", make_enum_value("__torch__.Scale", "", IValue(int64_t(2)))}};
  PickleOptions po;
  po.dialect = PickleOptions::Dialect::TorchScript;
  const std::string bytes = pickle(IValue(obj), po);
  // GLOBAL '__torch__.timm.layers.format Format', then the value, then REDUCE (no argument tuple).
  const auto at = bytes.find("c__torch__.timm.layers.format\nFormat\n");
  REQUIRE(at != std::string::npos);
  CHECK(bytes.find("NLC", at) != std::string::npos);
  UnpickleOptions uo;
  uo.allow_torchscript_classes = true;
  auto back = unpickle(bytes, uo).to_object();
  const IValue& fmt = *back->attr("fmt");
  REQUIRE(is_enum_value(fmt));
  CHECK(enum_class_name(fmt) == "__torch__.timm.layers.format.Format");
  CHECK(enum_member_value(fmt).to_string() == "NLC");
  CHECK(enum_member_name(fmt).empty());  // the pickle does not hold names; the class's code does
  auto type = EnumType::create("__torch__.timm.layers.format.Format", StringType::get(),
                               {{"NCHW", IValue("NCHW")}, {"NLC", IValue("NLC")}});
  CHECK(resolve_enum_name(fmt, *type->cast<EnumType>()));
  CHECK(enum_member_name(fmt) == "NLC");
  CHECK(enum_values_equal(fmt, make_enum_value("__torch__.timm.layers.format.Format", "NLC", IValue("NLC"))));
  CHECK_FALSE(enum_values_equal(*back->attr("scale"), make_enum_value("__torch__.Other", "TWO", IValue(int64_t(2)))));
  CHECK(enum_member_value(*back->attr("scale")).to_int() == 2);
}
