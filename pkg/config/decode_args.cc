// Strict decoding of plugin args and of the core/v1 types they embed.
#include <string>
#include <variant>

#include "pkg/config/yaml_decoder.h"

namespace stowage::config::internal {
namespace {

// Inside a Fields() handler (parameters k, v, p): decodes a known key into member.
#define STOWAGE_FIELD(json_name, member) \
  if (k == json_name) {                  \
    d.Get(v, p, member);                 \
    return true;                         \
  }

// --- core/v1 types ---------------------------------------------------------------------------

void Decode(Decoder& d, const YAML::Node& n, const FieldPath& path,
            api::LabelSelectorRequirement& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    STOWAGE_FIELD("key", out.key);
    STOWAGE_FIELD("operator", out.op);
    STOWAGE_FIELD("values", out.values);
    return false;
  });
}

void Decode(Decoder& d, const YAML::Node& n, const FieldPath& path, api::LabelSelector& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    STOWAGE_FIELD("matchLabels", out.match_labels);
    if (k == "matchExpressions") {
      d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
        Decode(d, item, ip, out.match_expressions.emplace_back());
      });
      return true;
    }
    return false;
  });
}

void Decode(Decoder& d, const YAML::Node& n, const FieldPath& path,
            api::TopologySpreadConstraint& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    STOWAGE_FIELD("maxSkew", out.max_skew);
    STOWAGE_FIELD("topologyKey", out.topology_key);
    STOWAGE_FIELD("whenUnsatisfiable", out.when_unsatisfiable);
    STOWAGE_FIELD("minDomains", out.min_domains);
    STOWAGE_FIELD("nodeAffinityPolicy", out.node_affinity_policy);
    STOWAGE_FIELD("nodeTaintsPolicy", out.node_taints_policy);
    STOWAGE_FIELD("matchLabelKeys", out.match_label_keys);
    if (k == "labelSelector") {
      out.label_selector.reset();
      if (!v.IsNull()) Decode(d, v, p, out.label_selector.emplace());
      return true;
    }
    return false;
  });
}

void Decode(Decoder& d, const YAML::Node& n, const FieldPath& path,
            api::NodeSelectorRequirement& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    STOWAGE_FIELD("key", out.key);
    STOWAGE_FIELD("operator", out.op);
    STOWAGE_FIELD("values", out.values);
    return false;
  });
}

void Decode(Decoder& d, const YAML::Node& n, const FieldPath& path, api::NodeSelectorTerm& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    auto* list = k == "matchExpressions" ? &out.match_expressions
                 : k == "matchFields"    ? &out.match_fields
                                         : nullptr;
    if (list == nullptr) return false;
    d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
      Decode(d, item, ip, list->emplace_back());
    });
    return true;
  });
}

void Decode(Decoder& d, const YAML::Node& n, const FieldPath& path, api::NodeAffinity& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
      out.required.reset();
      if (v.IsNull()) return true;
      api::NodeSelector& selector = out.required.emplace();
      d.Fields(v, p, [&](const std::string& k2, const YAML::Node& v2, const FieldPath& p2) {
        if (k2 != "nodeSelectorTerms") return false;
        d.Items(v2, p2, [&](const YAML::Node& item, const FieldPath& ip) {
          Decode(d, item, ip, selector.terms.emplace_back());
        });
        return true;
      });
      return true;
    }
    if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
      d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
        api::PreferredSchedulingTerm& term = out.preferred.emplace_back();
        d.Fields(item, ip, [&](const std::string& k2, const YAML::Node& v2, const FieldPath& p2) {
          if (k2 == "weight") return d.Get(v2, p2, term.weight), true;
          if (k2 == "preference") return Decode(d, v2, p2, term.preference), true;
          return false;
        });
      });
      return true;
    }
    return false;
  });
}

// --- args ------------------------------------------------------------------------------------

// The TypeMeta an args object may carry. Returns true if k was apiVersion or kind.
bool TypeMeta(Decoder& d, const std::string& k, const YAML::Node& v, const FieldPath& p,
              const std::string& plugin, std::string_view kind) {
  if (k == "apiVersion") {
    std::string version;
    d.Get(v, p, version);
    if (!version.empty() && version != kGroupVersion) {
      d.Fail(p, "args for plugin " + plugin + " must be " + std::string(kGroupVersion) + ", got " +
                    GoQuote(version));
    }
    return true;
  }
  if (k == "kind") {
    std::string got;
    d.Get(v, p, got);
    if (!got.empty() && got != kind) {
      d.Fail(p, "args for plugin " + plugin + " were not of type " + std::string(kind) +
                    ".kubescheduler.config.k8s.io, got " + got + ".kubescheduler.config.k8s.io");
    }
    return true;
  }
  return false;
}

void DecodeResources(Decoder& d, const YAML::Node& n, const FieldPath& path,
                     std::vector<ResourceSpec>& out) {
  out.clear();
  d.Items(n, path, [&](const YAML::Node& item, const FieldPath& ip) {
    ResourceSpec& r = out.emplace_back();
    d.Fields(item, ip, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
      STOWAGE_FIELD("name", r.name);
      STOWAGE_FIELD("weight", r.weight);
      return false;
    });
  });
}

void DecodeShape(Decoder& d, const YAML::Node& n, const FieldPath& path,
                 std::vector<UtilizationShapePoint>& out) {
  out.clear();
  d.Items(n, path, [&](const YAML::Node& item, const FieldPath& ip) {
    UtilizationShapePoint& point = out.emplace_back();
    d.Fields(item, ip, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
      STOWAGE_FIELD("utilization", point.utilization);
      STOWAGE_FIELD("score", point.score);
      return false;
    });
  });
}

// Each overload decodes one args kind; `d`, `n`, `path` and `plugin` as DecodeArgs.
#define STOWAGE_ARGS_FIELDS(kind_name, ...)                                              \
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) { \
    if (TypeMeta(d, k, v, p, plugin, kind_name)) return true;                            \
    __VA_ARGS__ return false;                                                            \
  })

void DecodeTyped(Decoder&, const YAML::Node&, const FieldPath&, const std::string&,
                 std::monostate&) {}
void DecodeTyped(Decoder&, const YAML::Node&, const FieldPath&, const std::string&, RawArgs&) {}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 DefaultPreemptionArgs& a) {
  STOWAGE_ARGS_FIELDS("DefaultPreemptionArgs", {
    STOWAGE_FIELD("minCandidateNodesPercentage", a.min_candidate_nodes_percentage);
    STOWAGE_FIELD("minCandidateNodesAbsolute", a.min_candidate_nodes_absolute);
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 InterPodAffinityArgs& a) {
  STOWAGE_ARGS_FIELDS("InterPodAffinityArgs", {
    STOWAGE_FIELD("hardPodAffinityWeight", a.hard_pod_affinity_weight);
    STOWAGE_FIELD("ignorePreferredTermsOfExistingPods", a.ignore_preferred_terms_of_existing_pods);
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 NodeResourcesFitArgs& a) {
  STOWAGE_ARGS_FIELDS("NodeResourcesFitArgs", {
    STOWAGE_FIELD("ignoredResources", a.ignored_resources);
    STOWAGE_FIELD("ignoredResourceGroups", a.ignored_resource_groups);
    if (k == "scoringStrategy") {
      a.scoring_strategy.reset();
      if (v.IsNull()) return true;
      ScoringStrategy& s = a.scoring_strategy.emplace();
      d.Fields(v, p, [&](const std::string& k2, const YAML::Node& v2, const FieldPath& p2) {
        if (k2 == "type") return d.Get(v2, p2, s.type), true;
        if (k2 == "resources") return DecodeResources(d, v2, p2, s.resources), true;
        if (k2 != "requestedToCapacityRatio") return false;
        s.requested_to_capacity_ratio.reset();
        if (v2.IsNull()) return true;
        RequestedToCapacityRatioParam& r = s.requested_to_capacity_ratio.emplace();
        d.Fields(v2, p2, [&](const std::string& k3, const YAML::Node& v3, const FieldPath& p3) {
          if (k3 != "shape") return false;
          DecodeShape(d, v3, p3, r.shape);
          return true;
        });
        return true;
      });
      return true;
    }
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 PodTopologySpreadArgs& a) {
  STOWAGE_ARGS_FIELDS("PodTopologySpreadArgs", {
    STOWAGE_FIELD("defaultingType", a.defaulting_type);
    if (k == "defaultConstraints") {
      d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
        Decode(d, item, ip, a.default_constraints.emplace_back());
      });
      return true;
    }
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 NodeResourcesBalancedAllocationArgs& a) {
  STOWAGE_ARGS_FIELDS("NodeResourcesBalancedAllocationArgs", {
    if (k == "resources") return DecodeResources(d, v, p, a.resources), true;
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 VolumeBindingArgs& a) {
  STOWAGE_ARGS_FIELDS("VolumeBindingArgs", {
    STOWAGE_FIELD("bindTimeoutSeconds", a.bind_timeout_seconds);
    if (k == "shape") {
      a.shape.reset();
      if (!v.IsNull()) DecodeShape(d, v, p, a.shape.emplace());
      return true;
    }
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 NodeAffinityArgs& a) {
  STOWAGE_ARGS_FIELDS("NodeAffinityArgs", {
    if (k == "addedAffinity") {
      a.added_affinity.reset();
      if (!v.IsNull()) Decode(d, v, p, a.added_affinity.emplace());
      return true;
    }
  });
}

void DecodeTyped(Decoder& d, const YAML::Node& n, const FieldPath& path, const std::string& plugin,
                 DynamicResourcesArgs& a) {
  STOWAGE_ARGS_FIELDS("DynamicResourcesArgs", {
    STOWAGE_FIELD("filterTimeout", a.filter_timeout);
    STOWAGE_FIELD("bindingTimeout", a.binding_timeout);
  });
}

#undef STOWAGE_ARGS_FIELDS
#undef STOWAGE_FIELD

}  // namespace

void DecodeArgs(Decoder& d, const YAML::Node& node, const FieldPath& path,
                const std::string& plugin_name, PluginArgs& out) {
  const bool absent = !node.IsDefined() || node.IsNull();
  std::optional<PluginArgs> typed = NewArgsForPlugin(plugin_name);
  if (!typed) {
    // Out-of-tree: kept as JSON for the plugin to decode.
    out = absent ? PluginArgs(std::monostate{}) : PluginArgs(RawArgs{d.ToJson(node, path)});
    return;
  }
  out = std::move(*typed);
  if (absent) return;
  if (!node.IsMap()) {
    d.Fail(path, "args for plugin " + plugin_name + " must be a map");
    return;
  }
  std::visit([&](auto& args) { DecodeTyped(d, node, path, plugin_name, args); }, out);
}

}  // namespace stowage::config::internal
