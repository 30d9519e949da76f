#include <doctest/doctest.h>

#include <cstring>

#include "lib/archive/unpickler.h"
#include "lib/core/error.h"
#include "tests/support/pickle_bytes.h"

using namespace jitctl;
using namespace jitctl::pickle_op;
using jitctl::test::PickleBytes;

namespace {

UnpickleOptions opts(bool classes = false) {
  UnpickleOptions o;
  o.record = "test.pkl";
  o.allow_torchscript_classes = classes;
  return o;
}

std::string error_of(const std::string& bytes, const UnpickleOptions& o) {
  try {
    unpickle(bytes, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

}  // namespace

TEST_CASE("scalars and strings, protocol 2") {
  PickleBytes p;
  p.proto().op(MARK).op(NONE).op(NEWTRUE).op(NEWFALSE).int1(200);
  p.op(BININT2).u8(0x34).u8(0x12);
  p.op(BININT).u32(0xFFFFFFFE);                                   // -2
  p.op(LONG1).u8(8).raw(std::string("\x00\x00\x00\x00\x00\x00\x00\x80", 8));  // INT64_MIN
  p.op(LONG1).u8(2).raw(std::string("\xff\x7f", 2));                       // 32767
  p.op(BINFLOAT).raw(std::string("\x3f\xf8\x00\x00\x00\x00\x00\x00", 8));  // 1.5, big-endian
  p.str("héllo").op(TUPLE).stop();
  auto t = unpickle(p.s, opts()).to_tuple()->items;
  REQUIRE(t.size() == 10);
  CHECK(t[0].is_none());
  CHECK(t[1].to_bool());
  CHECK_FALSE(t[2].to_bool());
  CHECK(t[3].to_int() == 200);
  CHECK(t[4].to_int() == 0x1234);
  CHECK(t[5].to_int() == -2);
  CHECK(t[6].to_int() == INT64_MIN);
  CHECK(t[7].to_int() == 32767);
  CHECK(t[8].to_double() == 1.5);
  CHECK(t[9].to_string() == "h\xc3\xa9llo");
}

TEST_CASE("containers and the memo: shared values stay shared") {
  PickleBytes p;
  p.proto().op(EMPTY_LIST).op(BINPUT).u8(0).op(MARK).int1(1).int1(2).op(APPENDS);  // l = [1, 2]
  p.op(EMPTY_DICT).op(MARK).str("a").op(BINGET).u8(0).str("b").op(BINGET).u8(0).op(SETITEMS);
  p.op(TUPLE2).stop();
  auto t = unpickle(p.s, opts()).to_tuple()->items;
  const auto& l = t[0].to_list();
  const auto& d = t[1].to_dict();
  CHECK(l->items.size() == 2);
  CHECK(d->find(IValue("a"))->to_list() == l);
  CHECK(d->find(IValue("b"))->to_list() == l);
}

TEST_CASE("protocol 4 framing, short strings, MEMOIZE and STACK_GLOBAL") {
  PickleBytes p;
  p.proto(4).op(FRAME).raw(std::string(8, '\0'));
  p.op(SHORT_BINUNICODE).u8(11).raw("collections").op(MEMOIZE);
  p.op(SHORT_BINUNICODE).u8(11).raw("OrderedDict").op(MEMOIZE);
  p.op(STACK_GLOBAL).op(EMPTY_TUPLE).op(REDUCE).op(MARK).op(SHORT_BINUNICODE).u8(1).raw("k").int1(7).op(SETITEMS);
  p.op(BINGET).u8(0).op(TUPLE2).stop();
  auto t = unpickle(p.s, opts()).to_tuple()->items;
  CHECK(t[0].to_dict()->find(IValue("k"))->to_int() == 7);
  CHECK(t[1].to_string() == "collections");
}

TEST_CASE("globals outside the allow-list are refused by name, never called") {
  for (auto [module, name] : {std::pair{"os", "system"}, {"builtins", "eval"}, {"builtins", "getattr"},
                              {"subprocess", "Popen"}, {"torch", "load"}, {"__builtin__", "exec"}}) {
    PickleBytes p;
    p.proto().global(module, name).str("echo pwned").op(TUPLE1).op(REDUCE).stop();
    const auto err = error_of(p.s, opts(true));
    CHECK(contains(err, std::string(module) + "." + name));
    CHECK(contains(err, "not allowed"));
    CHECK(contains(err, "test.pkl"));
  }
  // TorchScript classes only where the caller allows them (archives, not torch.save inputs).
  PickleBytes p;
  p.proto().global("__torch__", "M").op(EMPTY_TUPLE).op(NEWOBJ).op(EMPTY_DICT).op(BUILD).stop();
  CHECK(contains(error_of(p.s, opts(false)), "__torch__.M"));
  CHECK(unpickle(p.s, opts(true)).to_object()->type_name == "__torch__.M");
  PickleBytes q;
  q.proto().global("__torch__", "../../etc").op(EMPTY_TUPLE).op(NEWOBJ).stop();
  CHECK(contains(error_of(q.s, opts(true)), "not allowed"));
}

TEST_CASE("objects get attributes from BUILD in order") {
  PickleBytes p;
  p.proto().global("__torch__.a", "M").op(EMPTY_TUPLE).op(NEWOBJ).op(EMPTY_DICT).op(MARK);
  p.str("training").op(NEWFALSE).str("w").int1(3).op(SETITEMS).op(BUILD).stop();
  auto o = unpickle(p.s, opts(true)).to_object();
  CHECK(o->type_name == "__torch__.a.M");
  REQUIRE(o->attrs.size() == 2);
  CHECK(o->attrs[0].first == "training");
  CHECK(o->attr("w")->to_int() == 3);
  CHECK(o->setstate_arg == nullptr);
  // A non-dict state is kept for the class's __setstate__.
  PickleBytes q;
  q.proto().global("__torch__", "S").op(EMPTY_TUPLE).op(NEWOBJ).int1(1).int1(2).op(TUPLE2).op(BUILD).stop();
  auto s = unpickle(q.s, opts(true)).to_object();
  REQUIRE(s->setstate_arg);
  CHECK(s->setstate_arg->to_tuple()->items.size() == 2);
}

TEST_CASE("typed list helpers and type tags") {
  PickleBytes p;
  p.proto().global("torch.jit._pickle", "build_intlist").op(MARK).op(EMPTY_LIST).op(MARK).int1(1).int1(2);
  p.op(APPENDS).op(TUPLE).op(REDUCE);
  p.global("torch.jit._pickle", "restore_type_tag").op(EMPTY_DICT).str("Dict[str, List[Tensor]]").op(TUPLE2).op(REDUCE);
  p.op(TUPLE2).stop();
  auto t = unpickle(p.s, opts()).to_tuple()->items;
  CHECK(t[0].to_list()->elem_type == "int");
  CHECK(t[1].to_dict()->key_type == "str");
  CHECK(t[1].to_dict()->value_type == "List[Tensor]");
  PickleBytes bad;
  bad.proto().global("torch.jit._pickle", "build_intlist").op(MARK).op(EMPTY_LIST).op(MARK).str("x");
  bad.op(APPENDS).op(TUPLE).op(REDUCE).stop();
  CHECK(contains(error_of(bad.s, opts()), "List[int]"));
}

namespace {

// Tensor rebuild over fake storages: (key -> bytes) with a counter of how often each loads.
PickleBytes tensor_pickle(const std::string& storage_class, uint8_t numel, uint8_t offset,
                          std::initializer_list<uint8_t> sizes, std::initializer_list<uint8_t> strides) {
  PickleBytes p;
  p.global("torch._utils", "_rebuild_tensor_v2").op(MARK);
  p.op(MARK).str("storage").global("torch", storage_class).str("0").str("cpu").int1(numel).op(TUPLE).op(BINPERSID);
  p.int1(offset).op(MARK);
  for (auto s : sizes) p.int1(s);
  p.op(TUPLE).op(MARK);
  for (auto s : strides) p.int1(s);
  p.op(TUPLE).op(NEWFALSE).global("collections", "OrderedDict").op(EMPTY_TUPLE).op(REDUCE).op(TUPLE).op(REDUCE);
  return p;
}

}  // namespace

TEST_CASE("tensors are rebuilt over storages named by persistent ids") {
  int loads = 0;
  UnpickleOptions o = opts();
  o.load_storage = [&](const std::string& key, const std::string& loc, DType dt, int64_t numel) {
    ++loads;
    CHECK(key == "0");
    CHECK(loc == "cpu");
    return Storage::allocate(static_cast<size_t>(numel) * element_size(dt));
  };
  PickleBytes p;
  p.proto();
  p.raw(tensor_pickle("DoubleStorage", 12, 2, {2, 5}, {5, 1}).s);
  p.raw(tensor_pickle("DoubleStorage", 12, 0, {3}, {4}).s);
  p.op(TUPLE2).stop();
  auto t = unpickle(p.s, o).to_tuple()->items;
  const auto& a = t[0].to_tensor();
  const auto& b = t[1].to_tensor();
  CHECK(a.dtype() == DType::Float64);
  CHECK(a.sizes() == std::vector<int64_t>{2, 5});
  CHECK(a.storage_offset() == 2);
  CHECK(a.storage() == b.storage());  // one storage record, one storage
  CHECK(loads == 1);
  CHECK_FALSE(a.same(b));

  PickleBytes past;
  past.proto().raw(tensor_pickle("FloatStorage", 4, 1, {2, 2}, {2, 1}).s).stop();
  CHECK(contains(error_of(past.s, o), "needs 20 bytes"));
  PickleBytes evil;
  evil.proto().raw(tensor_pickle("EvilStorage", 4, 0, {4}, {1}).s).stop();
  CHECK(contains(error_of(evil.s, o), "torch.EvilStorage"));
}

TEST_CASE("malformed and hostile pickles fail with the record and byte offset") {
  auto err = [](const PickleBytes& p) { return error_of(p.s, opts()); };
  CHECK(contains(err(PickleBytes().proto().int1(1)), "without STOP"));
  CHECK(contains(err(PickleBytes().proto().op(TUPLE).stop()), "MARK"));
  CHECK(contains(err(PickleBytes().proto().op(REDUCE).stop()), "underflow"));
  CHECK(contains(err(PickleBytes().proto().op(BINGET).u8(3).stop()), "memo key 3"));
  CHECK(contains(err(PickleBytes().proto().op(0xff).stop()), "unknown opcode 0xff"));
  CHECK(contains(err(PickleBytes().proto().int1(1).int1(2).stop()), "2 values"));
  CHECK(contains(err(PickleBytes().proto(9).stop()), "protocol 9"));
  CHECK(contains(err(PickleBytes().proto().int1(1).op(EMPTY_DICT).op(BUILD).stop()), "BUILD"));
  // Lengths are checked before anything is allocated.
  CHECK(contains(err(PickleBytes().proto().op(BINUNICODE).u32(0xFFFFFFF0).raw("abc").stop()), "runs past the end"));
  CHECK(contains(err(PickleBytes().proto().op(LONG4).u32(0x7FFFFFFF).stop()), "runs past the end"));
  CHECK(contains(err(PickleBytes().proto().op(BINBYTES).u32(0x7FFFFFFF).raw("12345").stop()), "runs past the end"));
  CHECK(contains(err(PickleBytes().proto().op(LONG1).u8(9).raw(std::string(9, '\x01')).stop()), "64 bits"));
  // Error messages carry the byte offset of the opcode at fault.
  CHECK(contains(err(PickleBytes().proto().op(0xfe)), "test.pkl: byte 2:"));
  // Dict keys must be hashable.
  CHECK(contains(err(PickleBytes().proto().op(EMPTY_DICT).op(EMPTY_LIST).int1(1).op(SETITEM).stop()), "dict key"));
}

TEST_CASE("nesting is bounded and cycles cannot be built") {
  PickleBytes deep;
  deep.proto();
  for (int i = 0; i < 100000; ++i) deep.op(EMPTY_LIST);
  for (int i = 0; i < 99999; ++i) deep.op(APPEND);
  deep.stop();
  CHECK(contains(error_of(deep.s, opts()), "deeper than 512"));

  PickleBytes tuples;
  tuples.proto().op(NONE);
  for (int i = 0; i < 100000; ++i) tuples.op(TUPLE1);
  tuples.stop();
  CHECK(contains(error_of(tuples.s, opts()), "deeper than 512"));

  // l = []; l.append(l)
  PickleBytes cycle;
  cycle.proto().op(EMPTY_LIST).op(BINPUT).u8(0).op(BINGET).u8(0).op(APPEND).stop();
  CHECK_FALSE(error_of(cycle.s, opts()).empty());

  // Build a chain top-down by re-fetching each inner list from the memo after placing it.
  PickleBytes chain;
  chain.proto().op(EMPTY_LIST).op(BINPUT).u8(0);
  chain.op(EMPTY_LIST).op(BINPUT).u8(1).op(APPEND);  // l0.append(l1)
  chain.op(POP).op(BINGET).u8(1).op(EMPTY_LIST).op(APPEND).stop();  // l1.append([]) after l1 was placed
  CHECK(contains(error_of(chain.s, opts()), "after it was placed"));

  PickleBytes ok;
  ok.proto().op(NONE);
  for (int i = 0; i < 500; ++i) ok.op(TUPLE1);
  ok.stop();
  CHECK(unpickle(ok.s, opts()).is(IValue::Kind::Tuple));
}
