#include <doctest/doctest.h>

#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/ivalue.h"

using namespace jitctl;

TEST_CASE("dtype names, sizes and storage classes follow PyTorch") {
  CHECK(dtype_name(DType::Float32) == "float32");
  CHECK(dtype_name(DType::BFloat16) == "bfloat16");
  CHECK(element_size(DType::Complex128) == 16);
  CHECK(element_size(DType::Bool) == 1);
  CHECK(dtype_from_storage_class("FloatStorage") == DType::Float32);
  CHECK(dtype_from_storage_class("LongStorage") == DType::Int64);
  CHECK(dtype_from_storage_class("ByteStorage") == DType::UInt8);
  CHECK(dtype_from_storage_class("CharStorage") == DType::Int8);
  CHECK(dtype_from_storage_class("BFloat16Storage") == DType::BFloat16);
  CHECK(dtype_from_storage_class("ComplexDoubleStorage") == DType::Complex128);
  CHECK(dtype_from_storage_class("QInt8Storage") == DType::QInt8);
  CHECK(is_quantized(DType::QUInt8));
  CHECK_FALSE(dtype_from_storage_class("EvilStorage"));
  CHECK_FALSE(dtype_from_storage_class("Storage"));
  CHECK(dtype_from_name("long") == DType::Int64);
  CHECK(dtype_from_name("float16") == DType::Float16);
}

TEST_CASE("tensor views are checked against their storage") {
  auto s = Storage::allocate(24 * 4);
  auto t = Tensor::view_of(s, DType::Float32, 0, {2, 3, 4}, {12, 4, 1}, "t");
  CHECK(t.numel() == 24);
  CHECK(t.is_contiguous());
  CHECK(t.nbytes() == 96);
  auto tr = Tensor::view_of(s, DType::Float32, 1, {4, 3}, {1, 4}, "t");  // transposed view, offset 1
  CHECK_FALSE(tr.is_contiguous());
  CHECK(static_cast<const float*>(tr.data()) == reinterpret_cast<const float*>(s->data()) + 1);

  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float32, 1, {2, 3, 4}, {12, 4, 1}, "t"), InvalidInput);   // one past
  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float64, 0, {24}, {1}, "t"), InvalidInput);                // wider dtype
  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float32, 0, {-1}, {1}, "t"), InvalidInput);
  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float32, 0, {2}, {-1}, "t"), InvalidInput);
  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float32, -1, {2}, {1}, "t"), InvalidInput);
  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float32, 0, {int64_t(1) << 40, int64_t(1) << 40}, {1, 1}, "t"), InvalidInput);
  CHECK_THROWS_AS(Tensor::view_of(s, DType::Float32, 0, {2, 2}, {1}, "t"), InvalidInput);
  // Zero elements need no storage at all, whatever the strides say.
  CHECK(Tensor::view_of(Storage::allocate(0), DType::Float32, 5, {0, 7}, {7, 1}, "t").numel() == 0);
  // A 0-dim tensor is one element.
  CHECK(Tensor::view_of(s, DType::Float32, 23, {}, {}, "t").numel() == 1);
  try {
    Tensor::view_of(s, DType::Float32, 0, {100}, {1}, "model.pt: archive/data.pkl");
    FAIL("no error");
  } catch (const InvalidInput& e) {
    CHECK(std::string(e.what()).find("archive/data.pkl") != std::string::npos);
    CHECK(std::string(e.what()).find("needs 400 bytes") != std::string::npos);
  }
}

TEST_CASE("lazy storages load once, on first use") {
  int calls = 0;
  static const uint8_t bytes[4] = {1, 2, 3, 4};
  auto s = Storage::lazy(4, {}, "test", [&](std::shared_ptr<const void>&) {
    ++calls;
    return bytes;
  });
  CHECK_FALSE(s->loaded());
  CHECK(calls == 0);
  CHECK(s->data()[2] == 3);
  CHECK(s->data()[3] == 4);
  CHECK(calls == 1);
  s->mutable_data()[0] = 9;  // copies before writing: the source stays untouched
  CHECK(bytes[0] == 1);
  CHECK(s->data()[0] == 9);
}

TEST_CASE("device strings") {
  CHECK(Device::parse("cpu")->str() == "cpu");
  CHECK(Device::parse("cuda:1")->index == 1);
  CHECK_FALSE(Device::parse("cuda:"));
  CHECK_FALSE(Device::parse("tpu"));
  CHECK_FALSE(Device::parse("cuda:-1"));
}

TEST_CASE("dict keys follow Python equality and keep insertion order") {
  DictData d;
  d.set(IValue(int64_t(1)), IValue("a"));
  d.set(IValue("x"), IValue("b"));
  d.set(IValue(1.0), IValue("c"));  // 1.0 == 1: replaces
  d.set(IValue(true), IValue("d"));  // True == 1: replaces
  REQUIRE(d.items.size() == 2);
  CHECK(d.items[0].second.to_string() == "d");
  CHECK(d.find(IValue("x"))->to_string() == "b");
  CHECK(d.find(IValue("y")) == nullptr);
  for (int i = 0; i < 10000; ++i) d.set(IValue(int64_t(i + 10)), IValue());
  CHECK(d.items.size() == 10002);
}

TEST_CASE("descriptions and sizes for people") {
  CHECK(human_bytes(512) == "512 B");
  CHECK(human_bytes(1536) == "1.5 KiB");
  CHECK(human_bytes(45ull << 20) == "45.0 MiB");
  CHECK(grouped(1234567) == "1,234,567");
  CHECK(grouped(12) == "12");
  auto tup = std::make_shared<TupleData>();
  tup->items = {IValue(Tensor::empty(DType::Float32, {1, 3})), IValue(int64_t(3)), IValue("hi")};
  CHECK(describe(IValue(tup)) == "tuple(float32[1, 3], int 3, str 'hi')");
}
