#include "pkg/common/text_table.h"

#include <algorithm>

namespace stowage {

void AppendAlignedTable(std::string& out, const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows) {
    std::string line = " ";
    for (size_t c = 0; c < r.size(); ++c) {
      const size_t pad = width[c] - r[c].size();
      const bool last = c + 1 == r.size();
      const bool align_right = c < right.size() && right[c];
      line += "  ";
      if (align_right) line.append(pad, ' ');
      line += r[c];
      if (!align_right && !last) line.append(pad, ' ');
    }
    out += line + "\n";
  }
}

}  // namespace stowage
