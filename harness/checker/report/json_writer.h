// A small streaming JSON writer: the harness must build with nothing but a C++ compiler
// and the CUDA toolkit, so it cannot depend on a JSON library. Tests parse its output
// with nlohmann-json to keep it honest.
#pragma once
#include <sstream>
#include <string>
#include <vector>

namespace cudalab {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double v);  // non-finite numbers become null (JSON has no NaN)
  JsonWriter& value(long long v);
  JsonWriter& value(unsigned long long v);
  JsonWriter& value(int v) { return value(static_cast<long long>(v)); }
  JsonWriter& value(size_t v) { return value(static_cast<unsigned long long>(v)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  template <class T>
  JsonWriter& field(const std::string& k, const T& v) {
    key(k);
    return value(v);
  }
  std::string str() const { return out_.str(); }

  static std::string escape(const std::string& s);

 private:
  void before_value();
  std::ostringstream out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace cudalab
