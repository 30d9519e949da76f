// Fuzz target: the unpickler (lib/archive/unpickler.h) on bare pickle bytes, as data.pkl and as a
// torch.save file's pickle (TorchScript classes allowed or not, by the first byte), with storages
// made on request; what it returns is described, walked, and pickled again and read back.
#include <memory>
#include <string>

#include "lib/archive/pickler.h"
#include "lib/archive/unpickler.h"
#include "lib/core/describe.h"
#include "lib/core/error.h"
#include "lib/core/storage.h"
#include "tests/fuzz/fuzz_support.h"

using namespace jitctl;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  UnpickleOptions o;
  o.record = "fuzz.pt: archive/data.pkl";
  o.allow_torchscript_classes = size > 0 && (data[0] & 1);
  o.load_storage = [](const std::string&, const std::string&, DType dtype, int64_t numel) {
    // What Archive::load_pickle checks against the record's size, with a small record.
    const unsigned __int128 need = static_cast<unsigned __int128>(numel) * element_size(dtype);
    if (numel < 0 || need > (1u << 16)) throw InvalidInput("fuzz: storage larger than its record");
    return Storage::allocate(static_cast<size_t>(need));
  };
  IValue v;
  fuzz::expect_clean("unpickle", [&] { v = unpickle(fuzz::as_text(data, size), o); });
  fuzz::touch(v);
  describe(v);
  fuzz::expect_clean("unpickle", [&] {
    PickleOptions p;
    p.dialect = o.allow_torchscript_classes ? PickleOptions::Dialect::TorchScript : PickleOptions::Dialect::TorchSave;
    std::vector<std::shared_ptr<Storage>> storages;
    p.storage_key = [&](const std::shared_ptr<Storage>& s, DType) {
      storages.push_back(s);
      return std::to_string(storages.size() - 1);
    };
    const std::string again = pickle(v, p);
    UnpickleOptions back = o;
    back.load_storage = [&](const std::string& key, const std::string&, DType, int64_t) {
      return storages.at(std::stoul(key));
    };
    fuzz::touch(unpickle(again, back));
  });
  return 0;
}
