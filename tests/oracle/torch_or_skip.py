"""Shared start of the live-PyTorch oracle tests: exit 77 (meson's "skipped") without torch."""
import sys

try:
    import torch  # noqa: F401
except ImportError:
    print("SKIP: Debian's python3-torch is not installed")
    sys.exit(77)
