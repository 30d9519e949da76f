#include "lib/archive/file_kind.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "lib/archive/archive.h"
#include "lib/archive/pickle_scan.h"
#include "lib/archive/torch_save.h"
#include "lib/archive/zip_reader.h"
#include "lib/core/error.h"

namespace jitctl {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

constexpr uint64_t kMaxScannedPickle = uint64_t(256) << 20;

// A ModelProto starts with field 1 (ir_version, a small varint), then another known field.
bool looks_like_onnx(const uint8_t* p, size_t n) {
  if (n < 4 || p[0] != 0x08 || p[1] == 0 || p[1] > 32) return false;
  const uint8_t next = p[2];
  return next == 0x12 || next == 0x1a || next == 0x22 || next == 0x28 || next == 0x32 || next == 0x3a || next == 0x42;
}

// 8-byte little-endian header length, then a JSON object.
bool looks_like_safetensors(const uint8_t* p, size_t n) {
  if (n < 10) return false;
  uint64_t len = 0;
  for (int i = 7; i >= 0; --i) len = (len << 8) | p[i];
  return len >= 2 && len <= n - 8 && p[8] == '{';
}

// The data a torch.save file may hold (what the unpickler allows for it), as opposed to Python
// classes that only a pickled eager module names.
bool is_data_global(const std::string& g) {
  if (starts_with(g, "torch._utils._rebuild_tensor") || starts_with(g, "torch.jit._pickle.") || g == "collections.OrderedDict" ||
      g == "torch.Size" || g == "torch.device" || g == "torch._utils._rebuild_qtensor" || g == "torch._utils._rebuild_sparse_tensor")
    return true;
  if (starts_with(g, "torch.") && ends_with(g, "Storage") && g.find('.', 6) == std::string::npos) return true;
  // torch.float32 and the other dtypes
  if (starts_with(g, "torch.") && g.find('.', 6) == std::string::npos && g.size() > 6 && std::islower(static_cast<unsigned char>(g[6])))
    return true;
  return false;
}

FileIdentity identify_torch_save(const ZipReader& zip, const std::string& root) {
  const auto* pkl = zip.find(root + "/data.pkl");
  FileIdentity id{FileKind::TorchSave, ""};
  if (!pkl || pkl->size > kMaxScannedPickle) return id;
  std::string bytes;
  try {
    bytes = zip.read(*pkl, kMaxScannedPickle);
  } catch (const Error&) {
    return id;
  }
  const auto globals = pickle_globals(bytes);
  bool parameter = false;
  std::string module_class;
  for (const auto& g : globals) {
    if (g == "torch._utils._rebuild_parameter") parameter = true;
    if (module_class.empty() && !is_data_global(g) && g != "torch._utils._rebuild_parameter") module_class = g;
  }
  if (!module_class.empty() && (starts_with(module_class, "__main__.") || starts_with(module_class, "torch.nn.") || parameter ||
                                std::isupper(static_cast<unsigned char>(module_class[module_class.rfind('.') + 1]))))
    return {FileKind::PickledModule, "class " + module_class};
  if (parameter) return {FileKind::PickledModule, "nn.Parameter objects"};
  // A state_dict is an OrderedDict at the top (the first thing its pickle builds), with its
  // _metadata set by BUILD. (Tensors name OrderedDict too, for their backward hooks.)
  const std::string_view head = "\x80\x02" "ccollections\nOrderedDict\n";
  if (std::string_view(bytes).substr(0, head.size()) == head) {
    size_t storages = 0;
    for (const auto& e : zip.entries())
      if (starts_with(e.name, root + "/data/")) ++storages;
    return {FileKind::StateDict, fmt::format("{} tensor storage{}", storages, storages == 1 ? "" : "s")};
  }
  return id;
}

FileIdentity identify_zip(const std::shared_ptr<MappedFile>& file) {
  std::shared_ptr<ZipReader> zip;
  try {
    zip = ZipReader::open(file);
  } catch (const Error&) {
    return {FileKind::Zip, ""};
  }
  const auto& entries = zip->entries();
  bool all_npy = !entries.empty();
  std::string root;
  bool one_root = true;
  for (const auto& e : entries) {
    const std::string_view name = e.name;
    if (name == "serialized_exported_program.json" || ends_with(name, "/archive_format") || name == "archive_format")
      return {FileKind::TorchExport, ""};
    if (!(ends_with(name, ".npy") || ends_with(name, "/"))) all_npy = false;
    const size_t slash = name.find('/');
    const std::string r = slash == std::string_view::npos ? "" : std::string(name.substr(0, slash));
    if (root.empty() && !r.empty()) root = r;
    if (r.empty() || r != root) one_root = false;
  }
  if (all_npy) return {FileKind::Npz, ""};
  if (!one_root) return {FileKind::Zip, ""};
  auto has = [&](const std::string& record) { return zip->find(root + "/" + record) != nullptr; };
  if (has("data.pkl")) {
    bool code = has("constants.pkl");
    for (const auto& e : entries) code = code || starts_with(e.name, root + "/code/");
    if (code) return {FileKind::TorchScript, has("bytecode.pkl") ? "lite interpreter" : ""};
    return identify_torch_save(*zip, root);
  }
  if (has("model.json")) return {FileKind::LegacyTorchScript, ""};
  if (has("bytecode.pkl")) return {FileKind::BytecodeOnly, ""};
  return {FileKind::Zip, ""};
}

}  // namespace

FileIdentity identify_file(const std::shared_ptr<MappedFile>& file) {
  const uint8_t* p = file->data();
  const size_t n = file->size();
  if (n == 0) return {FileKind::Empty, ""};
  if (n >= 4 && p[0] == 'P' && p[1] == 'K' && ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6))) return identify_zip(file);
  if (n >= 6 && std::memcmp(p, "\x93NUMPY", 6) == 0) return {FileKind::Npy, ""};
  if (n >= 8 && std::memcmp(p + 4, "PTMF", 4) == 0) return {FileKind::MobileFlatbuffer, ""};
  if (n >= 8 && std::memcmp(p, "\x89HDF\r\n\x1a\n", 8) == 0) return {FileKind::Hdf5, ""};
  if (n >= 4 && std::memcmp(p, "GGUF", 4) == 0) return {FileKind::Gguf, ""};
  if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5) {
    // The legacy torch.save format starts with its magic number pickled as a LONG1.
    static const uint8_t magic[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    if (n >= 14 && std::memcmp(p + 2, magic, sizeof magic) == 0) return {FileKind::LegacyTorchSave, ""};
    return {FileKind::Pickle, ""};
  }
  if (looks_like_onnx(p, n)) return {FileKind::Onnx, ""};
  if (looks_like_safetensors(p, n)) return {FileKind::Safetensors, ""};
  return {FileKind::Unknown, ""};
}

FileIdentity identify_file(const std::string& path) { return identify_file(MappedFile::open(path)); }

std::string describe_file_kind(const FileIdentity& id) {
  const std::string extra = id.detail.empty() ? "" : ", " + id.detail;
  switch (id.kind) {
    case FileKind::TorchScript: return "a TorchScript archive" + (id.detail.empty() ? "" : " (" + id.detail + ")");
    case FileKind::TorchSave: return "a torch.save file";
    case FileKind::StateDict: return "a state_dict (torch.save(model.state_dict())" + extra + ")";
    case FileKind::PickledModule: return "an eager nn.Module pickled by torch.save(model) (" + id.detail + ")";
    case FileKind::LegacyTorchSave: return "a torch.save file in the legacy format of PyTorch before 1.6";
    case FileKind::LegacyTorchScript: return "a TorchScript archive in the legacy format of PyTorch before 1.4 (model.json)";
    case FileKind::BytecodeOnly: return "a lite-interpreter archive with bytecode only (no TorchScript code)";
    case FileKind::MobileFlatbuffer: return "a PyTorch Mobile flatbuffer (_save_for_lite_interpreter with _use_flatbuffer=True)";
    case FileKind::TorchExport: return "a torch.export program (.pt2, from torch.export.save)";
    case FileKind::Onnx: return "an ONNX model (torch.onnx.export)";
    case FileKind::Safetensors: return "a safetensors weights file";
    case FileKind::Npy: return "a NumPy .npy array";
    case FileKind::Npz: return "a NumPy .npz archive";
    case FileKind::Hdf5: return "an HDF5 file (Keras?)";
    case FileKind::Gguf: return "a GGUF model (llama.cpp)";
    case FileKind::Pickle: return "a Python pickle";
    case FileKind::Zip: return "a zip archive";
    case FileKind::Empty: return "empty (0 bytes)";
    case FileKind::Unknown: return "of an unknown format";
  }
  return "?";
}

namespace {

constexpr const char* kExport =
    "export the model with torch.jit.script(model) or torch.jit.trace(model, example_inputs), then "
    "torch.jit.save(m, 'model.pt')";

}  // namespace

void refuse_unless_model(const std::string& path, const FileIdentity& id, const std::shared_ptr<MappedFile>& file) {
  const std::string is = fmt::format("{}: this is {}", path, describe_file_kind(id));
  switch (id.kind) {
    case FileKind::TorchScript:
    case FileKind::Zip:
    case FileKind::Unknown:
      return;
    case FileKind::StateDict:
      throw InvalidInput(fmt::format("{}, weights without the code of the model; jitctl needs a TorchScript archive: {}", is, kExport));
    case FileKind::PickledModule:
      throw InvalidInput(fmt::format("{}, which only Python with that class can load (jitctl never runs pickled code); {}", is, kExport));
    case FileKind::TorchSave:
      // A damaged or hostile one is reported as such first (its pickle's problem, named).
      if (file) (void)load_torch_save(*Archive::open(ZipReader::open(file)));
      [[fallthrough]];
    case FileKind::Npy:
    case FileKind::Npz:
      throw InvalidInput(fmt::format("{}, not a model; inputs go after --inputs: jitctl run MODEL --inputs {}", is, path));
    case FileKind::LegacyTorchSave:
      throw Unsupported(fmt::format("{}; load it in PyTorch and save it again, or if it holds a model, {}", is, kExport));
    case FileKind::LegacyTorchScript:
      throw Unsupported(fmt::format("{}; load it with torch.jit.load in PyTorch >= 1.4 and torch.jit.save it again", is));
    case FileKind::BytecodeOnly:
    case FileKind::MobileFlatbuffer:
      throw Unsupported(fmt::format("{}; jitctl reads TorchScript zip archives: save the scripted module with torch.jit.save(m, 'model.pt')", is));
    case FileKind::TorchExport:
    case FileKind::Onnx:
    case FileKind::Safetensors:
    case FileKind::Hdf5:
    case FileKind::Gguf:
    case FileKind::Pickle:
      throw InvalidInput(fmt::format("{}, not a TorchScript archive; jitctl reads what torch.jit.save writes: {}", is, kExport));
    case FileKind::Empty:
      throw InvalidInput(fmt::format("{}: the file is empty (0 bytes)", path));
  }
}

void refuse_unless_inputs(const std::string& path, const FileIdentity& id) {
  const std::string is = fmt::format("{}: this is {}", path, describe_file_kind(id));
  constexpr const char* kInputs = "inputs are torch.save((x, y), 'inputs.pt') files, .npy or .npz arrays, or --input-spec";
  switch (id.kind) {
    case FileKind::TorchSave:
    case FileKind::Npy:
    case FileKind::Npz:
    case FileKind::Zip:
    case FileKind::Unknown:
      return;
    case FileKind::TorchScript:
    case FileKind::LegacyTorchScript:
    case FileKind::BytecodeOnly:
    case FileKind::MobileFlatbuffer:
      throw InvalidInput(fmt::format("{}, a model, not inputs: give it as the model (jitctl run {} --inputs X.pt); {}", is, path, kInputs));
    case FileKind::StateDict:
      throw InvalidInput(fmt::format("{}, not inputs: {} (a state_dict argument: torch.save((dict(sd),), 'inputs.pt'))", is, kInputs));
    case FileKind::LegacyTorchSave:
      throw Unsupported(fmt::format("{}; re-save it with torch.save in PyTorch >= 1.6", is));
    case FileKind::Empty:
      throw InvalidInput(fmt::format("{}: the file is empty (0 bytes)", path));
    default:
      throw InvalidInput(fmt::format("{}, not inputs: {}", is, kInputs));
  }
}

}  // namespace jitctl
