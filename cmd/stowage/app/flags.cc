// FlagSet: registration, pflag's parsing rules and error messages, and the --help layout of
// pflag's FlagUsagesWrapped and cliflag.PrintSections.
#include "cmd/stowage/app/flags.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "pkg/common/macros.h"
#include "pkg/config/field_error.h"

namespace stowage::app {
namespace {

// pflag's UnquoteUsage: a `backquoted` word in the usage names the value; otherwise the type
// does, with pflag's friendlier spellings.
std::pair<std::string, std::string> UnquoteUsage(const Flag& flag) {
  const std::string& usage = flag.usage;
  const size_t open = usage.find('`');
  if (open != std::string::npos) {
    const size_t close = usage.find('`', open + 1);
    if (close != std::string::npos) {
      std::string name = usage.substr(open + 1, close - open - 1);
      return {name, usage.substr(0, open) + name + usage.substr(close + 1)};
    }
  }
  std::string name = flag.value->Type();
  if (name == "bool" || name == "boolfunc") {
    name.clear();
  } else if (name == "func") {
    name = "value";
  } else if (name == "float64") {
    name = "float";
  } else if (name == "int64") {
    name = "int";
  } else if (name == "uint64") {
    name = "uint";
  } else if (name == "stringSlice") {
    name = "strings";
  } else if (name == "intSlice") {
    name = "ints";
  } else if (name == "uintSlice") {
    name = "uints";
  } else if (name == "boolSlice") {
    name = "bools";
  }
  return {name, usage};
}

// pflag's wrapN: splits s at the last whitespace before i bytes, allowing slop more if that
// takes the whole string.
std::pair<std::string, std::string> WrapN(size_t i, size_t slop, const std::string& s) {
  if (i + slop > s.size()) return {s, ""};
  const size_t w = s.substr(0, i).find_last_of(" \t\n");
  if (w == std::string::npos || w == 0) return {s, ""};
  const size_t nl = s.substr(0, i).rfind('\n');
  if (nl != std::string::npos && nl > 0 && nl < w) return {s.substr(0, nl), s.substr(nl + 1)};
  return {s.substr(0, w), s.substr(w + 1)};
}

std::string ReplaceNewlines(const std::string& s, const std::string& with) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += with;
    } else {
      out += c;
    }
  }
  return out;
}

// pflag's wrap: wraps s to width w with indent i for continuation lines; w == 0 only indents
// the lines s already has.
std::string Wrap(size_t i, int w, std::string s) {
  if (w <= 0) return ReplaceNewlines(s, "\n" + std::string(i, ' '));
  int wrap = w - static_cast<int>(i);
  std::string r;
  if (wrap < 24) {
    i = 16;
    wrap = w - static_cast<int>(i);
    r += "\n" + std::string(i, ' ');
  }
  if (wrap < 24) return ReplaceNewlines(s, r);
  const size_t slop = 5;
  const size_t width = static_cast<size_t>(wrap) - slop;
  auto [l, rest] = WrapN(width, slop, s);
  r += ReplaceNewlines(l, "\n" + std::string(i, ' '));
  s = rest;
  while (!s.empty()) {
    auto [t, more] = WrapN(width, slop, s);
    r += "\n" + std::string(i, ' ') + ReplaceNewlines(t, "\n" + std::string(i, ' '));
    s = more;
  }
  return r;
}

// One flag's usage line before alignment: the part left of the help column, and the help.
std::pair<std::string, std::string> UsageParts(const Flag& flag) {
  std::string left = flag.shorthand ? std::string("  -") + flag.shorthand + ", --" + flag.name
                                    : "      --" + flag.name;
  auto [varname, usage] = UnquoteUsage(flag);
  if (!varname.empty()) left += " " + varname;
  if (!flag.no_opt_def_value.empty()) {
    const std::string type = flag.value->Type();
    if (type == "string") {
      left += "[=\"" + flag.no_opt_def_value + "\"]";
    } else if (type == "bool" || type == "boolfunc") {
      if (flag.no_opt_def_value != "true") left += "[=" + flag.no_opt_def_value + "]";
    } else if (type == "count") {
      if (flag.no_opt_def_value != "+1") left += "[=" + flag.no_opt_def_value + "]";
    } else {
      left += "[=" + flag.no_opt_def_value + "]";
    }
  }
  if (!flag.value->IsZeroDefault(flag.def_value)) {
    if (flag.value->Type() == "string") {
      usage += " (default " + GoQuote(flag.def_value) + ")";
    } else {
      usage += " (default " + flag.def_value + ")";
    }
  }
  if (!flag.deprecated.empty()) usage += " (DEPRECATED: " + flag.deprecated + ")";
  return {left, usage};
}

// pflag's FlagUsagesWrapped over the given flags (already in order).
std::string FormatFlagLines(const std::vector<const Flag*>& flags, int cols) {
  std::vector<std::pair<std::string, std::string>> lines;
  size_t maxlen = 0;
  for (const Flag* f : flags) {
    if (f->hidden || !f->deprecated.empty()) continue;  // MarkDeprecated also hides
    lines.push_back(UsageParts(*f));
    maxlen = std::max(maxlen, lines.back().first.size() + 1);
  }
  std::string out;
  for (const auto& [left, usage] : lines) {
    // Go's Fprintln(buf, left, spacing, text) puts one space between the operands.
    out += left + " " + std::string(maxlen - left.size(), ' ') + " " +
           Wrap(maxlen + 2, cols, usage) + "\n";
  }
  return out;
}

// A throwaway value for the alignment trick of PrintSections.
class DummyValue : public FlagValue {
 public:
  Status Set(std::string_view) override { return OkStatus(); }
  std::string String() const override { return "0"; }
  std::string Type() const override { return "int"; }
};

}  // namespace

void FlagSet::SetGroup(std::string group) {
  if (std::find(groups_.begin(), groups_.end(), group) == groups_.end()) {
    groups_.push_back(group);
  }
  group_ = std::move(group);
}

Flag& FlagSet::Var(std::unique_ptr<FlagValue> value, std::string name, std::string usage) {
  name = NormalizeFlagName(name);
  if (by_name_.count(name) != 0) {
    std::cerr << name_ << " flag redefined: " << name << "\n";
    std::abort();
  }
  if (groups_.empty()) SetGroup("");
  auto flag = std::make_unique<Flag>();
  flag->name = name;
  flag->usage = std::move(usage);
  flag->group = group_;
  flag->def_value = value->String();
  flag->value = std::move(value);
  Flag& ref = *flag;
  by_name_[name] = &ref;
  flags_.push_back(std::move(flag));
  return ref;
}

const Flag* FlagSet::Lookup(std::string_view name) const {
  auto it = by_name_.find(NormalizeFlagName(name));
  return it == by_name_.end() ? nullptr : it->second;
}

Flag* FlagSet::Lookup(std::string_view name) {
  auto it = by_name_.find(NormalizeFlagName(name));
  return it == by_name_.end() ? nullptr : it->second;
}

bool FlagSet::Changed(std::string_view name) const {
  const Flag* f = Lookup(name);
  return f != nullptr && f->changed;
}

std::vector<const Flag*> FlagSet::Flags() const {
  std::vector<const Flag*> out;
  for (const auto& f : flags_) out.push_back(f.get());
  return out;
}

Status FlagSet::Set(std::string_view name, std::string_view value) {
  Flag* f = Lookup(name);
  if (f == nullptr) {
    return InvalidArgumentError("flag " + GoQuote(name) + " does not exist");
  }
  return SetFlag(*f, value);
}

Status FlagSet::SetFlag(Flag& flag, std::string_view value) {
  Status s = flag.value->Set(value);
  if (!s.ok()) {
    const std::string shown =
        flag.shorthand ? std::string("-") + flag.shorthand + ", --" + flag.name : "--" + flag.name;
    return InvalidArgumentError("invalid argument " + GoQuote(value) + " for " + GoQuote(shown) +
                                " flag: " + std::string(s.message()));
  }
  flag.changed = true;
  if (!flag.deprecated.empty()) {
    (out_ ? *out_ : std::cerr) << "Flag --" << flag.name << " has been deprecated, "
                               << flag.deprecated << "\n";
  }
  return OkStatus();
}

Status FlagSet::Parse(const std::vector<std::string>& arguments) {
  by_shorthand_.clear();
  for (const auto& f : flags_) {
    if (f->shorthand) by_shorthand_[f->shorthand] = f.get();
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& s = arguments[i];
    if (s.size() < 2 || s[0] != '-') {
      args_.push_back(s);
      continue;
    }
    if (s[1] == '-') {
      if (s.size() == 2) {  // "--" ends the flags
        args_.insert(args_.end(), arguments.begin() + static_cast<long>(i) + 1, arguments.end());
        break;
      }
      RETURN_IF_ERROR(ParseLong(s, arguments, i));
    } else {
      RETURN_IF_ERROR(ParseShort(s, arguments, i));
    }
  }
  return OkStatus();
}

Status FlagSet::ParseLong(std::string_view arg, const std::vector<std::string>& arguments,
                          size_t& i) {
  std::string_view name = arg.substr(2);
  if (name.empty() || name[0] == '-' || name[0] == '=') {
    return InvalidArgumentError("bad flag syntax: " + std::string(arg));
  }
  const size_t eq = name.find('=');
  std::optional<std::string_view> value;
  if (eq != std::string_view::npos) {
    value = name.substr(eq + 1);
    name = name.substr(0, eq);
  }
  Flag* flag = Lookup(name);
  if (flag == nullptr) return InvalidArgumentError("unknown flag: --" + std::string(name));
  if (value) return SetFlag(*flag, *value);
  if (!flag->no_opt_def_value.empty()) return SetFlag(*flag, flag->no_opt_def_value);
  if (i + 1 < arguments.size()) return SetFlag(*flag, arguments[++i]);
  return InvalidArgumentError("flag needs an argument: --" + std::string(name));
}

Status FlagSet::ParseShort(std::string_view arg, const std::vector<std::string>& arguments,
                           size_t& i) {
  std::string_view shorthands = arg.substr(1);
  while (!shorthands.empty()) {
    const char c = shorthands[0];
    auto it = by_shorthand_.find(c);
    if (it == by_shorthand_.end()) {
      return InvalidArgumentError(std::string("unknown shorthand flag: '") + c + "' in -" +
                                  std::string(shorthands));
    }
    Flag& flag = *it->second;
    if (shorthands.size() > 2 && shorthands[1] == '=') {  // -f=value
      return SetFlag(flag, shorthands.substr(2));
    }
    if (!flag.no_opt_def_value.empty()) {  // -f, maybe followed by more shorthands
      RETURN_IF_ERROR(SetFlag(flag, flag.no_opt_def_value));
      shorthands.remove_prefix(1);
      continue;
    }
    if (shorthands.size() > 1) return SetFlag(flag, shorthands.substr(1));  // -fvalue
    if (i + 1 < arguments.size()) return SetFlag(flag, arguments[++i]);     // -f value
    return InvalidArgumentError(std::string("flag needs an argument: '") + c + "' in -" +
                                std::string(shorthands));
  }
  return OkStatus();
}

std::string FlagSet::GroupUsage(std::string_view group, int cols) const {
  std::vector<const Flag*> flags;
  for (const auto& f : flags_) {
    if (f->group == group) flags.push_back(f.get());
  }
  std::sort(flags.begin(), flags.end(),
            [](const Flag* a, const Flag* b) { return a->name < b->name; });
  if (cols <= 24) return FormatFlagLines(flags, cols);
  // cliflag.PrintSections: a dummy flag with a name of cols-24 letters pushes the help column
  // so far right that every help text starts on its own line, indented the same in every
  // group; the dummy's own line is then cut off.
  Flag dummy;
  dummy.name = std::string(static_cast<size_t>(cols - 24), 'z');
  dummy.usage = dummy.name;
  dummy.value = std::make_unique<DummyValue>();
  dummy.def_value = "0";
  flags.push_back(&dummy);
  std::string text = FormatFlagLines(flags, cols);
  const size_t cut = text.find("      --" + dummy.name);
  return text.substr(0, cut);
}

std::string FlagSet::Usage(int cols) const {
  std::string out;
  for (const std::string& group : groups_) {
    bool any = false;
    for (const auto& f : flags_) any = any || f->group == group;
    if (!any) continue;
    std::string title = group;
    if (!title.empty()) title[0] = static_cast<char>(std::toupper(title[0]));
    out += "\n" + title + " flags:\n\n" + GroupUsage(group, cols);
  }
  return out;
}

}  // namespace stowage::app
