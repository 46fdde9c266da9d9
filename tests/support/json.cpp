#include "support/json.hpp"

#include <istream>
#include <ostream>

namespace speedqa::testing {

nlohmann::json parse_json(const std::string& text) { return nlohmann::json::parse(text); }
nlohmann::json parse_json(std::istream& in) { return nlohmann::json::parse(in); }
nlohmann::ordered_json parse_ordered_json(const std::string& text) { return nlohmann::ordered_json::parse(text); }
nlohmann::ordered_json parse_ordered_json(std::istream& in) { return nlohmann::ordered_json::parse(in); }
std::string dump_json(const nlohmann::json& j, int indent) { return j.dump(indent); }
std::string dump_json(const nlohmann::ordered_json& j, int indent) { return j.dump(indent); }

}  // namespace speedqa::testing

NLOHMANN_JSON_NAMESPACE_BEGIN
void PrintTo(const json& j, std::ostream* os) { *os << j.dump(); }
void PrintTo(const ordered_json& j, std::ostream* os) { *os << j.dump(); }
NLOHMANN_JSON_NAMESPACE_END
