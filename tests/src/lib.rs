//! Loader-level integration tests: the layer driven through the real Vulkan loader, on RADV's
//! null-hardware devices and lavapipe. The tests live in `tests/tests/`.
