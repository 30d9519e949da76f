#pragma once
// What a file is, told by its content (magic bytes, zip entries, the globals its pickle names),
// never by its extension: so that `model.NPY` loads, and a file given in the wrong place -- a
// state_dict or a pickled nn.Module as the model, a model as --inputs, an ONNX or torch.export
// file -- is named in one line with what to do instead.
#include <memory>
#include <string>

#include "lib/archive/mapped_file.h"

namespace jitctl {

enum class FileKind {
  TorchScript,        // torch.jit.save archive (a .ptl lite-interpreter zip is one too)
  TorchSave,          // torch.save zip of plain values (tensors, tuples, lists, dicts, numbers)
  StateDict,          // torch.save(model.state_dict()) or a checkpoint of state_dicts
  PickledModule,      // torch.save(model): an eager nn.Module pickled with its Python class
  LegacyTorchSave,    // torch.save before PyTorch 1.6 (or _use_new_zipfile_serialization=False)
  LegacyTorchScript,  // torch.jit.save before PyTorch 1.4 (model.json)
  BytecodeOnly,       // a lite-interpreter zip with bytecode.pkl but no TorchScript records
  MobileFlatbuffer,   // _save_for_lite_interpreter(..., _use_flatbuffer=True)
  TorchExport,        // torch.export.save (.pt2)
  Onnx,
  Safetensors,
  Npy,
  Npz,
  Hdf5,
  Gguf,
  Pickle,             // a bare Python pickle that is not a legacy torch.save
  Zip,                // some other zip
  Empty,
  Unknown,
};

struct FileIdentity {
  FileKind kind = FileKind::Unknown;
  std::string detail;  // e.g. "class __main__.TinyNet", "3 tensors"
};

// Reads only what it needs: the first bytes, the zip's entry names, and for a torch.save file
// the globals of data.pkl. Never throws for odd content (an unreadable zip is Zip or Unknown);
// throws InvalidInput when the file cannot be opened.
FileIdentity identify_file(const std::shared_ptr<MappedFile>& file);
FileIdentity identify_file(const std::string& path);

// "a state_dict (torch.save(model.state_dict()), 3 tensors)": what the kind is, for messages.
std::string describe_file_kind(const FileIdentity& id);

// The one-line error for a file that is not a TorchScript archive, naming what it is and what
// to do instead; nullptr-free: throws InvalidInput (exit 2), or Unsupported (exit 3) for formats
// of PyTorch's that jitctl does not read (legacy formats, mobile flatbuffers). Returns for
// TorchScript (and for Zip and Unknown, whose loaders say precisely what is wrong). Given the
// file, a torch.save file is loaded first, so that a damaged one is named for its damage.
void refuse_unless_model(const std::string& path, const FileIdentity& id, const std::shared_ptr<MappedFile>& file = nullptr);
// The same for --inputs: returns for TorchSave, Npy, Npz (and Zip, Unknown).
void refuse_unless_inputs(const std::string& path, const FileIdentity& id);

}  // namespace jitctl
