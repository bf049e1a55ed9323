#pragma once
/// \file
/// The pprof schema's generated classes (profile.proto, built by protoc), as `pb::`; for
/// the pprof writer and whatever reads its output back.

// protoc's generated code is not written for our warning set.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Woverloaded-virtual"
#include "profile.pb.h"
#pragma GCC diagnostic pop

namespace perfx::report {

namespace pb = perftools::profiles;

}  // namespace perfx::report
