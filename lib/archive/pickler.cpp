#include "lib/archive/pickler.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_map>

#include "lib/archive/pickle_opcodes.h"
#include "lib/core/error.h"

namespace jitctl {
namespace {

using namespace pickle_op;
using K = IValue::Kind;

class Pickler {
 public:
  explicit Pickler(const PickleOptions& o) : o_(o) {}

  std::string run(const IValue& v) {
    op(PROTO);
    out_ += '\x02';
    value(v);
    op(STOP);
    return std::move(out_);
  }

 private:
  bool script() const { return o_.dialect == PickleOptions::Dialect::TorchScript; }
  void op(uint8_t o) { out_ += static_cast<char>(o); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }

  void put_memo(const void* key) {
    const uint32_t id = next_memo_++;
    if (key) memo_[key] = id;
    if (id < 256) {
      op(BINPUT);
      le(id, 1);
    } else {
      op(LONG_BINPUT);
      le(id, 4);
    }
  }
  bool get_memo(const void* key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return false;
    if (it->second < 256) {
      op(BINGET);
      le(it->second, 1);
    } else {
      op(LONG_BINGET);
      le(it->second, 4);
    }
    return true;
  }

  void global(const std::string& module, const std::string& name) {
    const std::string key = module + "\n" + name;
    auto it = globals_.find(key);
    if (it != globals_.end()) {
      get_memo(it->second.get());
      return;
    }
    op(GLOBAL);
    out_ += module + "\n" + name + "\n";
    auto token = std::make_shared<int>(0);  // a unique address to memoize the global under
    globals_[key] = token;
    put_memo(token.get());
  }

  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op(BININT1);
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      op(BININT2);
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op(BININT);
      le(static_cast<uint32_t>(static_cast<int32_t>(v)), 4);
    } else {
      op(LONG1);
      out_ += '\x08';
      le(static_cast<uint64_t>(v), 8);
    }
  }

  void real(double d) {
    op(BINFLOAT);
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    for (int i = 7; i >= 0; --i) out_ += static_cast<char>((bits >> (8 * i)) & 0xff);  // big-endian
  }

  // TorchScript's pickler writes each distinct string once and refers back to it (as it does for
  // globals): an attribute name repeated in every module costs two bytes after the first.
  void string(const std::string& s) {
    if (script()) {
      if (auto it = strings_.find(s); it != strings_.end()) {
        get_memo(it->second.get());
        return;
      }
    }
    op(BINUNICODE);
    le(s.size(), 4);
    out_ += s;
    if (script()) {
      auto token = std::make_shared<int>(0);
      strings_[s] = token;
      put_memo(token.get());
    }
  }

  void tuple_of(const std::vector<IValue>& items) {
    if (items.empty()) return op(EMPTY_TUPLE);
    if (items.size() > 3) op(MARK);
    for (const auto& i : items) value(i);
    static constexpr Op kSmall[] = {EMPTY_TUPLE, TUPLE1, TUPLE2, TUPLE3};
    op(items.size() <= 3 ? kSmall[items.size()] : TUPLE);
  }

  void int_tuple(const std::vector<int64_t>& xs) {
    std::vector<IValue> items(xs.begin(), xs.end());
    tuple_of(items);
  }

  void tensor(const Tensor& t) {
    if (get_memo(&t.impl())) return;
    const bool as_parameter = !script() && t.impl().is_parameter;
    if (as_parameter) global("torch._utils", "_rebuild_parameter");
    global("torch._utils", "_rebuild_tensor_v2");
    op(MARK);
    storage(t.storage(), t.dtype());
    integer(t.storage_offset());
    int_tuple(t.sizes());
    int_tuple(t.strides());
    op(as_parameter ? NEWFALSE : (t.requires_grad() ? NEWTRUE : NEWFALSE));
    global("collections", "OrderedDict");
    op(EMPTY_TUPLE);
    op(REDUCE);
    op(TUPLE);
    op(REDUCE);
    if (as_parameter) {
      op(t.requires_grad() ? NEWTRUE : NEWFALSE);
      global("collections", "OrderedDict");
      op(EMPTY_TUPLE);
      op(REDUCE);
      op(TUPLE3);
      op(REDUCE);
    }
    put_memo(&t.impl());
  }

  void storage(const std::shared_ptr<Storage>& s, DType dtype) {
    if (get_memo(s.get())) return;
    if (!o_.storage_key) throw Error(ExitCode::InvalidInput, "pickler: tensors given but no storage writer");
    op(MARK);
    string("storage");
    global("torch", std::string(scalar_type_name(dtype)) + "Storage");
    string(o_.storage_key(s, dtype));
    string(s->device().str());
    integer(static_cast<int64_t>(s->nbytes() / element_size(dtype)));
    op(TUPLE);
    op(BINPERSID);
    put_memo(s.get());
  }

  // TorchScript tags containers with their static type so that they load with it.
  void tagged(const std::string& type, const std::function<void()>& body) {
    global("torch.jit._pickle", "restore_type_tag");
    body();
    string(type);
    op(TUPLE2);
    op(REDUCE);
  }

  void list(const std::shared_ptr<ListData>& l) {
    if (get_memo(l.get())) return;
    const std::string& et = l->elem_type;
    const char* helper = et == "int" ? "build_intlist" : et == "float" ? "build_doublelist" : et == "bool" ? "build_boollist"
                         : et == "Tensor" ? "build_tensorlist" : nullptr;
    auto items = [&] {
      op(EMPTY_LIST);
      if (!l->items.empty()) {
        op(MARK);
        for (const auto& i : l->items) value(i);
        op(APPENDS);
      }
    };
    if (script() && helper) {
      global("torch.jit._pickle", helper);
      op(MARK);
      items();
      op(TUPLE);
      op(REDUCE);
    } else if (script() && !et.empty()) {
      tagged("List[" + et + "]", items);
    } else {
      items();
    }
    put_memo(l.get());
  }

  void dict(const std::shared_ptr<DictData>& d) {
    if (get_memo(d.get())) return;
    auto items = [&] {
      op(EMPTY_DICT);
      if (!d->items.empty()) {
        op(MARK);
        for (const auto& [k, v] : d->items) {
          value(k);
          value(v);
        }
        op(SETITEMS);
      }
    };
    if (script() && !d->key_type.empty()) tagged("Dict[" + d->key_type + ", " + d->value_type + "]", items);
    else items();
    put_memo(d.get());
  }

  void object(const std::shared_ptr<ObjectData>& o) {
    if (!script())
      throw Error(ExitCode::Unsupported, fmt::format("cannot write an object of class {} with torch.save", o->type_name));
    if (get_memo(o.get())) return;
    const auto dot = o->type_name.rfind('.');
    if (dot == std::string::npos) throw Error(ExitCode::InvalidInput, fmt::format("class name {} is not qualified", o->type_name));
    global(o->type_name.substr(0, dot), o->type_name.substr(dot + 1));
    if (o->is_enum) {
      // As torch.jit.save writes an Enum member: its class called with its value.
      value(o->attrs.at(1).second);
      op(REDUCE);
      return;
    }
    op(EMPTY_TUPLE);
    op(NEWOBJ);
    put_memo(o.get());
    if (o->setstate_arg) {
      value(*o->setstate_arg);
    } else {
      op(EMPTY_DICT);
      if (!o->attrs.empty()) {
        op(MARK);
        for (const auto& [k, v] : o->attrs) {
          string(k);
          value(v);
        }
        op(SETITEMS);
      }
    }
    op(BUILD);
  }

  void value(const IValue& v) {
    const ValueDepthGuard level("pickling");
    switch (v.kind()) {
      case K::None: return op(NONE);
      case K::Bool: return op(v.to_bool() ? NEWTRUE : NEWFALSE);
      case K::Int: return integer(v.to_int());
      case K::Double: return real(v.to_double());
      case K::String: return string(v.to_string());
      case K::Complex:
        global("builtins", "complex");
        real(v.to_complex().real());
        real(v.to_complex().imag());
        op(TUPLE2);
        return op(REDUCE);
      case K::Tensor: return tensor(v.to_tensor());
      case K::Tuple: return tuple_of(v.to_tuple()->items);
      case K::List: return list(v.to_list());
      case K::Dict: return dict(v.to_dict());
      case K::Object: return object(v.to_object());
      case K::Device:
        global("torch", "device");
        string(v.to_device().str());
        op(TUPLE1);
        return op(REDUCE);
      case K::Storage:
      case K::Global:
      case K::Future: throw Error(ExitCode::InvalidInput, fmt::format("cannot pickle a {}", kind_name(v.kind())));
    }
  }

  const PickleOptions& o_;
  std::string out_;
  uint32_t next_memo_ = 0;
  std::unordered_map<const void*, uint32_t> memo_;
  std::unordered_map<std::string, std::shared_ptr<int>> strings_;
  std::unordered_map<std::string, std::shared_ptr<int>> globals_;
};

}  // namespace

std::string pickle(const IValue& value, const PickleOptions& options) { return Pickler(options).run(value); }

}  // namespace jitctl
