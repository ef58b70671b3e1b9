// HTTP content negotiation as the Kubernetes apiserver libraries do it, for the answers stowage
// must shape like upstream's (401/403 Status bodies, z-pages): goautoneg's Accept parsing and
// responsewriters' pretty-printing rule. Pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace stowage {

// One clause of an Accept header: type/subtype, its q (1 by default, 0 when malformed) and the
// other parameters.
struct AcceptClause {
  std::string type, subtype;
  double q = 1.0;
  std::map<std::string, std::string> params;
};

// goautoneg.ParseAccept: malformed clauses are skipped, and the result is ordered by q, then
// concrete types before wildcards, as its insertion sort leaves the short lists clients send.
std::vector<AcceptClause> ParseAccept(std::string_view header);

// responsewriters' isPrettyPrint: the query's "pretty" parameter when it has a value, else true
// for User-Agents starting with "curl", "Wget" or "Mozilla/5.0".
bool IsPrettyPrint(std::string_view user_agent, std::string_view raw_query);

}  // namespace stowage
