// Aligned text tables for people (explain, simulate): each column padded to its widest cell.
#pragma once

#include <string>
#include <vector>

namespace stowage {

// Appends rows to out, one line each, indented by three spaces; the columns marked in right are
// aligned right (numbers), the others left.
void AppendAlignedTable(std::string& out, const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right = {});

}  // namespace stowage
