// JSON for the tests: parsing, printing, and how GoogleTest prints a value,
// each instantiated once here (json.cpp) instead of in every test file that
// reads JSON. The parser and the serializer are most of such a file's compile
// time (about 7 of 10 s a file under the sanitizers); reading a parsed value
// (at, [], get, size, ==) stays cheap.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace speedqa::testing {

nlohmann::json parse_json(const std::string& text);
nlohmann::json parse_json(std::istream& in);
nlohmann::ordered_json parse_ordered_json(const std::string& text);
nlohmann::ordered_json parse_ordered_json(std::istream& in);
std::string dump_json(const nlohmann::json& j, int indent = -1);
std::string dump_json(const nlohmann::ordered_json& j, int indent = -1);

}  // namespace speedqa::testing

// GoogleTest prints a value through PrintTo where one is found (by the
// value's namespace): these keep its printer from instantiating
// basic_json's operator<<.
NLOHMANN_JSON_NAMESPACE_BEGIN
void PrintTo(const json& j, std::ostream* os);
void PrintTo(const ordered_json& j, std::ostream* os);
NLOHMANN_JSON_NAMESPACE_END
