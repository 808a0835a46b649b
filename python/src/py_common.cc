#include "py_common.h"

#include <cstdlib>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::py {

bool python_signal_pending() {
  pyb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) {
    PyErr_Clear();
    return true;
  }
  return false;
}

namespace {

template <class Json>
pyb::object json_to_python(const Json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      pyb::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) {
        d[pyb::str(it.key())] = json_to_python(it.value());
      }
      return std::move(d);
    }
    case nlohmann::json::value_t::array: {
      pyb::list l;
      for (const auto& v : j) {
        l.append(json_to_python(v));
      }
      return std::move(l);
    }
    case nlohmann::json::value_t::boolean:
      return pyb::bool_(j.template get<bool>());
    case nlohmann::json::value_t::number_integer:
      return pyb::int_(j.template get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return pyb::int_(j.template get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return pyb::float_(j.template get<double>());
    case nlohmann::json::value_t::string:
      return pyb::str(j.template get<std::string>());
    default:
      return pyb::none();
  }
}

}  // namespace

pyb::object to_python(const nlohmann::ordered_json& j) {
  return json_to_python(j);
}
pyb::object to_python(const nlohmann::json& j) {
  return json_to_python(j);
}

nlohmann::json from_python(const pyb::handle& h, const std::string& what) {
  if (h.is_none()) {
    return nullptr;
  }
  if (pyb::isinstance<pyb::bool_>(h)) {
    return h.cast<bool>();
  }
  if (pyb::isinstance<pyb::int_>(h)) {
    return h.cast<int64_t>();
  }
  if (pyb::isinstance<pyb::float_>(h)) {
    return h.cast<double>();
  }
  if (pyb::isinstance<pyb::str>(h)) {
    return h.cast<std::string>();
  }
  if (pyb::isinstance<pyb::dict>(h)) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : h.cast<pyb::dict>()) {
      const std::string key = pyb::str(k);
      j[key] = from_python(v, what + "." + key);
    }
    return j;
  }
  if (pyb::isinstance<pyb::list>(h) || pyb::isinstance<pyb::tuple>(h)) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& v : h) {
      j.push_back(from_python(v, what));
    }
    return j;
  }
  throw Error(fmt::format("{}: a {} is not a JSON value", what,
                          std::string(pyb::str(h.get_type().attr("__name__")))));
}

pyb::array_t<int8_t> to_numpy(std::vector<int8_t>&& data, const std::vector<pyb::ssize_t>& shape) {
  auto* owned = new std::vector<int8_t>(std::move(data));
  pyb::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<int8_t>*>(p); });
  return pyb::array_t<int8_t>(shape, owned->data(), free_when_done);
}

namespace {

template <class T>
std::vector<T> elements(const pyb::handle& h, size_t expected, const char* what,
                        const char* type_name) {
  pyb::array a = pyb::array::ensure(h);
  if (!a) {
    throw Error(fmt::format("{}: expected a numpy array of {}", what, type_name));
  }
  if (!pyb::isinstance<pyb::array_t<T>>(a) || a.dtype().kind() != pyb::dtype::of<T>().kind() ||
      a.itemsize() != static_cast<pyb::ssize_t>(sizeof(T))) {
    throw Error(fmt::format("{}: dtype {} is not {} (convert with .astype(numpy.{}))", what,
                            std::string(pyb::str(a.dtype())), type_name, type_name));
  }
  if (static_cast<size_t>(a.size()) != expected) {
    throw Error(fmt::format("{}: has {} elements, expected {}", what, a.size(), expected));
  }
  auto c = pyb::array_t<T, pyb::array::c_style | pyb::array::forcecast>::ensure(a);
  const T* p = c.data();
  return std::vector<T>(p, p + expected);
}

}  // namespace

std::vector<int8_t> int8_elements(const pyb::handle& h, size_t expected, const char* what) {
  return elements<int8_t>(h, expected, what, "int8");
}

std::vector<int32_t> int32_elements(const pyb::handle& h, size_t expected, const char* what) {
  return elements<int32_t>(h, expected, what, "int32");
}

}  // namespace vta::py
