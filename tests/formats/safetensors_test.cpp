#include "formats/safetensors.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "formats/safetensors_writer.hpp"
#include "tests/formats/hf_test_files.hpp"

namespace adarl {
namespace {

using test::read_bytes;
using test::safetensors_bytes;
using test::scratch_dir;
using test::write_bytes;

template <class T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span(v));
}

template <class T>
std::vector<T> values_of(const tensor_view& t) {
  std::vector<T> out(t.size_bytes / sizeof(T));
  std::memcpy(out.data(), t.data, t.size_bytes);
  return out;
}

std::string message_of_open(const std::string& path) {
  auto f = safetensors_file::open(path);
  return f.ok() ? "opened" : f.err().message;
}

TEST(SafetensorsTest, RoundTripsEachDtypeWithMetadata) {
  scratch_dir dir;
  const std::vector<float> f32{1.5f, -2.f, 1e-30f, INFINITY, 0.f, 3.f};
  std::vector<uint16_t> bf16, f16;
  for (float x : f32) {
    bf16.push_back(float_to_bf16(x));
    f16.push_back(float_to_f16(x));
  }
  const std::vector<int64_t> i64{-1, 1ll << 40};
  const std::vector<int32_t> i32{7, -7, 0};
  const std::vector<uint8_t> u8{};  // a zero-size tensor
  const std::vector<float> scalar{42.f};
  const std::vector<tensor_to_write> tensors{
      {"w.f32", tensor_dtype::f32, {2, 3}, bytes_of(f32)},
      {"w.bf16", tensor_dtype::bf16, {3, 2}, bytes_of(bf16)},
      {"w.f16", tensor_dtype::f16, {6}, bytes_of(f16)},
      {"ids", tensor_dtype::i64, {2}, bytes_of(i64)},
      {"mask", tensor_dtype::i32, {1, 3}, bytes_of(i32)},
      {"empty", tensor_dtype::u8, {0, 4}, bytes_of(u8)},
      {"scalar", tensor_dtype::f32, {}, bytes_of(scalar)},
  };
  const auto path = dir.file("model.safetensors");
  ASSERT_TRUE(write_safetensors(path, tensors, pt_format_metadata()).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  auto f = safetensors_file::open(path);
  ASSERT_TRUE(f.ok()) << f.err().message;
  EXPECT_EQ(f->names(), (std::vector<std::string>{"empty", "ids", "mask", "scalar",
                                                  "w.bf16", "w.f16", "w.f32"}));
  EXPECT_EQ(f->metadata().at("format"), "pt");
  for (const auto& t : tensors) {
    auto v = f->tensor(t.name, t.shape);
    ASSERT_TRUE(v.ok()) << v.err().message;
    EXPECT_EQ(v->dtype, t.dtype) << t.name;
    ASSERT_EQ(v->size_bytes, t.data.size()) << t.name;
    // memcmp with a null pointer is undefined even for 0 bytes ("empty" has no data).
    if (!t.data.empty()) {
      EXPECT_EQ(std::memcmp(v->data, t.data.data(), t.data.size()), 0) << t.name;
    }
  }
  EXPECT_EQ(values_of<int64_t>(*f->tensor("ids")), i64);
  EXPECT_EQ(f->tensor("scalar")->numel(), 1);
  EXPECT_EQ(f->tensor("empty")->numel(), 0);
  // Each float dtype converts back: F32 and BF16/F16 of representable values exactly.
  for (const char* name : {"w.f32", "w.bf16", "w.f16"}) {
    auto v = f->tensor(name);
    std::vector<float> out(6);
    ASSERT_TRUE(to_float32(*v, out, name).ok());
    EXPECT_EQ(out[0], 1.5f) << name;
    EXPECT_EQ(out[1], -2.f) << name;
    EXPECT_TRUE(std::isinf(out[3])) << name;
  }
  std::vector<float> out(6);
  ASSERT_TRUE(to_float32(*f->tensor("w.bf16"), out, "bf16").ok());
  EXPECT_EQ(out[2], bf16_to_float(float_to_bf16(1e-30f)));
  // The data starts 8-byte aligned (the header is padded), so the first (I64) tensor is.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f->tensor("ids")->data) % 8, 0u);
}

// The byte vectors of the reference implementation's own tests
// (safetensors/src/tensor.rs: test_serialization, test_empty).
TEST(SafetensorsTest, WriterProducesTheReferenceBytes) {
  const std::vector<float> data{0.f, 1.f, 2.f, 3.f, 4.f, 5.f};
  const std::vector<tensor_to_write> one{
      {"attn.0", tensor_dtype::f32, {1, 2, 3}, bytes_of(data)}};
  auto bytes = serialize_safetensors(one, {});
  ASSERT_TRUE(bytes.ok());
  const std::string header =
      R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u);  // a multiple of 8: no padding
  EXPECT_EQ(*bytes,
            safetensors_bytes(
                header, std::string(reinterpret_cast<const char*>(data.data()), 24)));

  auto empty = serialize_safetensors({}, {});
  EXPECT_EQ(*empty, safetensors_bytes("{}      ", ""));
  auto meta = serialize_safetensors({}, {{"framework", "pt"}});
  EXPECT_EQ(*meta, safetensors_bytes(R"({"__metadata__":{"framework":"pt"}}     )", ""));

  // Forced alignment: a 57-byte header is padded with 7 spaces.
  const std::vector<tensor_to_write> aligned{
      {"attn0", tensor_dtype::f32, {1, 1, 2, 3}, bytes_of(data)}};
  auto padded = serialize_safetensors(aligned, {});
  EXPECT_EQ(padded->substr(0, 8), std::string("\x48\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(
      padded->substr(8, 72),
      R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       )");
}

TEST(SafetensorsTest, HeaderIsSortedByDtypeAlignmentThenName) {
  const std::vector<uint16_t> h{1, 2};
  const std::vector<int64_t> l{3};
  const std::vector<float> f{4.f, 5.f};
  const std::vector<float> f1{6.f};
  const std::vector<tensor_to_write> tensors{{"a", tensor_dtype::f16, {2}, bytes_of(h)},
                                             {"z", tensor_dtype::f32, {2}, bytes_of(f)},
                                             {"b", tensor_dtype::bf16, {2}, bytes_of(h)},
                                             {"c", tensor_dtype::i64, {1}, bytes_of(l)},
                                             {"y", tensor_dtype::f32, {1}, bytes_of(f1)}};
  auto bytes = serialize_safetensors(tensors, {});
  ASSERT_TRUE(bytes.ok());
  const auto header_end = bytes->find('}', bytes->rfind("data_offsets")) + 2;
  EXPECT_EQ(bytes->substr(8, header_end - 8),
            R"({"c":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
            R"("y":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},)"
            R"("z":{"dtype":"F32","shape":[2],"data_offsets":[12,20]},)"
            R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[20,24]},)"
            R"("a":{"dtype":"F16","shape":[2],"data_offsets":[24,28]}})");
}

TEST(SafetensorsTest, ReadsAFileWrittenByPython) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 is not installed: the reference file cannot be written";
  }
  scratch_dir dir;
  const auto path = dir.file("reference.safetensors");
  const std::string script =
      ADARL_SOURCE_DIR "/tests/formats/write_safetensors_reference.py";
  ASSERT_EQ(std::system(("python3 '" + script + "' '" + path + "'").c_str()), 0);
  auto f = safetensors_file::open(path);
  ASSERT_TRUE(f.ok()) << f.err().message;
  EXPECT_EQ(f->metadata().at("format"), "pt");
  EXPECT_EQ(f->size(), 5u);

  auto embed = f->tensor("model.embed_tokens.weight", std::vector<int64_t>{2, 3});
  ASSERT_TRUE(embed.ok()) << embed.err().message;
  std::vector<float> e(6);
  ASSERT_TRUE(to_float32(*embed, e, "embed").ok());
  EXPECT_EQ(
      e, (std::vector<float>{1.f, -2.5f, 0.15625f, std::ldexp(1.f, 127), -0.f, 65536.f}));
  EXPECT_TRUE(std::signbit(e[4]));
  std::vector<float> n(4);
  ASSERT_TRUE(to_float32(*f->tensor("model.norm.weight"), n, "norm").ok());
  EXPECT_EQ(n, (std::vector<float>{1.f, -0.5f, 65504.f, std::ldexp(1.f, -24)}));
  std::vector<float> w(4);
  ASSERT_TRUE(to_float32(*f->tensor("lm_head.weight"), w, "head").ok());
  EXPECT_EQ(w, (std::vector<float>{0.1f, -1.f, 3.5f, 1e-30f}));
  EXPECT_EQ(values_of<int64_t>(*f->tensor("position_ids")),
            (std::vector<int64_t>{0, -1, 1ll << 40}));
  EXPECT_EQ(values_of<int32_t>(*f->tensor("mask")), (std::vector<int32_t>{7, -7}));

  // Our writer, given the same tensors, writes the same bytes.
  std::vector<tensor_to_write> again;
  for (const auto& name : f->names()) {
    auto v = f->tensor(name);
    again.push_back({name, v->dtype, v->shape, v->bytes()});
  }
  EXPECT_EQ(*serialize_safetensors(again, pt_format_metadata()), read_bytes(path));
}

TEST(SafetensorsTest, WriteReplacesAtomicallyAndReportsAnUnwritableFile) {
  scratch_dir dir;
  const auto path = dir.file("m.safetensors");
  write_bytes(path, "old");
  const std::vector<float> a{1.f};
  const std::vector<tensor_to_write> one{{"a", tensor_dtype::f32, {1}, bytes_of(a)}};
  ASSERT_TRUE(write_safetensors(path, one).ok());
  EXPECT_EQ(read_bytes(path), *serialize_safetensors(one, {}));

  auto bad = write_safetensors(dir.file("no/such/dir/m.safetensors"), one);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("no/such/dir/m.safetensors.tmp: cannot create"),
            std::string::npos)
      << bad.err().message;
}

TEST(SafetensorsTest, WriterRefusesBadTensors) {
  const std::vector<float> a{1.f, 2.f};
  const std::vector<tensor_to_write> twice{{"a", tensor_dtype::f32, {2}, bytes_of(a)},
                                           {"a", tensor_dtype::f32, {2}, bytes_of(a)}};
  EXPECT_EQ(serialize_safetensors(twice, {}).err().message, "tensor 'a': written twice");
  const std::vector<tensor_to_write> short_data{
      {"b", tensor_dtype::f32, {3}, bytes_of(a)}};
  EXPECT_EQ(serialize_safetensors(short_data, {}).err().message,
            "tensor 'b': 8 bytes given, but its F32 shape needs 12");
  const std::vector<tensor_to_write> reserved{
      {"__metadata__", tensor_dtype::f32, {2}, bytes_of(a)}};
  EXPECT_EQ(serialize_safetensors(reserved, {}).err().message,
            "tensor '__metadata__': the name is reserved");
  scratch_dir dir;
  auto w = write_safetensors(dir.file("x.safetensors"), short_data);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.err().message.rfind(dir.file("x.safetensors") + ": tensor 'b'", 0), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.safetensors")));
}

TEST(SafetensorsTest, MissingTensorAndShapeMismatchNameFileAndTensor) {
  scratch_dir dir;
  const auto path = dir.file("m.safetensors");
  const std::vector<float> a(6, 0.f);
  const std::vector<tensor_to_write> one{{"w", tensor_dtype::f32, {2, 3}, bytes_of(a)}};
  ASSERT_TRUE(write_safetensors(path, one).ok());
  auto f = safetensors_file::open(path);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->tensor("v").err().message, path + ": no tensor 'v'");
  EXPECT_EQ(f->tensor("w", std::vector<int64_t>{3, 2}).err().message,
            path + ": tensor 'w' has shape [2, 3], expected [3, 2]");
  EXPECT_TRUE(f->tensor("w", std::vector<int64_t>{2, 3}).ok());
  EXPECT_FALSE(f->contains("v"));
}

struct bad_file {
  const char* what;
  std::string bytes;
  std::string message;  ///< Expected message after "PATH: ".
};

TEST(SafetensorsTest, MalformedFilesAreErrorsNamingFileAndTensor) {
  const std::string f32x2(8, '\0');
  const std::vector<bad_file> cases{
      {"truncated", std::string("\x05\0\0\0", 4),
       "truncated: 4 bytes, but a safetensors file starts with an 8-byte header length"},
      {"header beyond file", std::string("\x14\0\0\0\0\0\0\0{}", 10),
       "header length 20 goes beyond the file (10 bytes): truncated or not a safetensors "
       "file"},
      {"huge header", std::string("\xff\xff\xff\xff\0\0\0\0", 8) + "{}",
       "header length 4294967295 is over the 100000000-byte limit (corrupt file?)"},
      {"not an object", safetensors_bytes("[1, 2]  ", ""), "header is not a JSON object"},
      {"unknown dtype",
       safetensors_bytes(R"({"w":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}})",
                         f32x2),
       "tensor 'w': unknown dtype \"F17\""},
      {"missing field", safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2]}})", f32x2),
       "tensor 'w': expected an object with dtype, shape and data_offsets"},
      {"negative dim",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
                         f32x2),
       "tensor 'w': shape is not an array of non-negative integers"},
      {"out of range",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                         f32x2),
       "tensor 'w': data_offsets [0, 16] go beyond the data section (8 bytes)"},
      {"reversed",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})",
                         f32x2),
       "tensor 'w': data_offsets [8, 4] end before they begin"},
      {"size mismatch",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                         f32x2),
       "tensor 'w': data_offsets [0, 8] hold 8 bytes, but shape [3] of F32 needs 12"},
      {"overlap",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                         f32x2),
       "tensor 'b' (bytes 4..) overlaps tensor 'a' (ends at 8)"},
      {"gap",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                         f32x2),
       "tensor 'a' starts at byte 4 of the data, leaving a gap after byte 0 (the format "
       "requires contiguous tensors)"},
      {"trailing data",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                         f32x2),
       "the tensors cover 4 bytes of data, but the file holds 8 after the header"},
      {"metadata not strings", safetensors_bytes(R"({"__metadata__":{"n":1}})", ""),
       "__metadata__ 'n' is not a string"},
  };
  scratch_dir dir;
  for (const auto& c : cases) {
    const auto path = dir.file("bad.safetensors");
    write_bytes(path, c.bytes);
    EXPECT_EQ(message_of_open(path), path + ": " + c.message) << c.what;
  }
  write_bytes(dir.file("json.safetensors"), safetensors_bytes("{\"w\": ", ""));
  const auto json = message_of_open(dir.file("json.safetensors"));
  EXPECT_EQ(json.rfind(dir.file("json.safetensors") + ": header is not valid JSON: ", 0),
            0u)
      << json;
  EXPECT_EQ(message_of_open(dir.file("")), dir.file("") + ": not a regular file");
  const auto missing = message_of_open(dir.file("absent.safetensors"));
  EXPECT_EQ(missing,
            dir.file("absent.safetensors") + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace adarl
