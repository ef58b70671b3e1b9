#include "pkg/metrics/text_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace stowage::metrics {
namespace {

void AppendEscaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

std::string_view TypeName(prometheus::MetricType t) {
  switch (t) {
    case prometheus::MetricType::Counter: return "counter";
    case prometheus::MetricType::Gauge: return "gauge";
    case prometheus::MetricType::Histogram: return "histogram";
    case prometheus::MetricType::Summary: return "summary";
    default: return "untyped";
  }
}

// name{a="x",b="y"[,le="..."]} value\n
void AppendSample(std::string& out, std::string_view name, std::string_view suffix,
                  const std::vector<prometheus::ClientMetric::Label>& labels,
                  std::string_view extra_name, std::string_view extra_value, double value) {
  out.append(name).append(suffix);
  if (!labels.empty() || !extra_name.empty()) {
    out += '{';
    bool first = true;
    for (const auto& l : labels) {
      if (!first) out += ',';
      first = false;
      out.append(l.name).append("=\"");
      AppendEscaped(out, l.value, true);
      out += '"';
    }
    if (!extra_name.empty()) {
      if (!first) out += ',';
      out.append(extra_name).append("=\"").append(extra_value).append("\"");
    }
    out += '}';
  }
  out += ' ';
  out += FormatFloat(value);
  out += '\n';
}

void AppendMetric(std::string& out, const prometheus::MetricFamily& f,
                  const prometheus::ClientMetric& m) {
  switch (f.type) {
    case prometheus::MetricType::Counter:
      AppendSample(out, f.name, "", m.label, "", "", m.counter.value);
      break;
    case prometheus::MetricType::Gauge:
      AppendSample(out, f.name, "", m.label, "", "", m.gauge.value);
      break;
    case prometheus::MetricType::Histogram: {
      bool has_inf = false;
      for (const auto& b : m.histogram.bucket) {
        has_inf = has_inf || std::isinf(b.upper_bound);
        AppendSample(out, f.name, "_bucket", m.label, "le", FormatFloat(b.upper_bound),
                     static_cast<double>(b.cumulative_count));
      }
      if (!has_inf) {
        AppendSample(out, f.name, "_bucket", m.label, "le", "+Inf",
                     static_cast<double>(m.histogram.sample_count));
      }
      AppendSample(out, f.name, "_sum", m.label, "", "", m.histogram.sample_sum);
      AppendSample(out, f.name, "_count", m.label, "", "",
                   static_cast<double>(m.histogram.sample_count));
      break;
    }
    default: AppendSample(out, f.name, "", m.label, "", "", m.untyped.value); break;
  }
}

}  // namespace

std::string FormatFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return "0";
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view s(buf, sci.ptr - buf);
  int exp = 0;
  size_t e = s.find('e');
  std::string_view digits = s.substr(e + 1);
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  std::from_chars(digits.data(), digits.data() + digits.size(), exp);
  if (exp < -4 || exp >= 6) return std::string(s);
  auto fixed = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

std::string WriteTextFormat(std::vector<prometheus::MetricFamily> families) {
  std::sort(families.begin(), families.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::string out;
  for (auto& f : families) {
    if (f.metric.empty()) continue;  // as client_golang: a family without series is not shown
    std::sort(f.metric.begin(), f.metric.end(), [](const auto& a, const auto& b) {
      return std::lexicographical_compare(
          a.label.begin(), a.label.end(), b.label.begin(), b.label.end(),
          [](const auto& x, const auto& y) { return x.value < y.value; });
    });
    out.append("# HELP ").append(f.name).append(" ");
    AppendEscaped(out, f.help, false);
    out.append("\n# TYPE ").append(f.name).append(" ").append(TypeName(f.type)).append("\n");
    for (const auto& m : f.metric) AppendMetric(out, f, m);
  }
  return out;
}

}  // namespace stowage::metrics
