#pragma once
/// \file
/// `PERFX_API` marks a declaration that libperfx exports. libperfx is compiled with
/// hidden visibility, so in the shared library (`-DBUILD_SHARED_LIBS=ON`) only the
/// declarations marked here are visible: the public API, never perfx's internals.
/// Put it on every out-of-line public function and on classes with out-of-line members:
/// `class PERFX_API Sampler`, `PERFX_API Count scale_count(...)`.

#if defined(__GNUC__) || defined(__clang__)
#define PERFX_API __attribute__((visibility("default")))
#else
#define PERFX_API
#endif
