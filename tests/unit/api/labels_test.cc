// Tests for label selectors and node selectors, following the behaviour of upstream's
// apimachinery labels.Selector / metav1.LabelSelectorAsSelector and component-helpers'
// nodeaffinity (v1.36).
#include "stowage/api/labels.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace stowage::api::labels_test {
namespace {

StringMap Labels(std::initializer_list<std::pair<const char*, const char*>> entries) {
  std::vector<StringMap::Entry> out;
  for (const auto& [k, v] : entries) out.emplace_back(k, v);
  return StringMap(std::move(out));
}

Requirement MustRequire(const std::string& key, const std::string& op,
                        const std::vector<std::string>& values) {
  StatusOr<Requirement> r = MakeRequirement(key, op, values);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : Requirement{};
}

// --- Requirement::Matches --------------------------------------------------------------------

TEST(RequirementTest, Matches) {
  struct Case {
    const char* name;
    std::string key;
    std::string op;
    std::vector<std::string> values;
    StringMap labels;
    bool want;
  };
  const std::vector<Case> cases = {
      {"in: value listed", "app", "In", {"web", "db"}, Labels({{"app", "db"}}), true},
      {"in: value not listed", "app", "In", {"web", "db"}, Labels({{"app", "cache"}}), false},
      {"in: key missing", "app", "In", {"web"}, Labels({{"tier", "web"}}), false},
      {"in: the one value", "app", "In", {"web"}, Labels({{"app", "web"}}), true},
      {"in: one value, another of its length",
       "app",
       "In",
       {"web"},
       Labels({{"app", "wex"}}),
       false},
      {"in: one value, a prefix of it", "app", "In", {"web"}, Labels({{"app", "we"}}), false},
      {"notin: one value, a longer one", "app", "NotIn", {"web"}, Labels({{"app", "webs"}}), true},
      {"in: empty value listed", "app", "In", {""}, Labels({{"app", ""}}), true},
      {"in: empty value, key missing", "app", "In", {""}, Labels({}), false},
      {"notin: value listed", "app", "NotIn", {"web"}, Labels({{"app", "web"}}), false},
      {"notin: value not listed", "app", "NotIn", {"web"}, Labels({{"app", "db"}}), true},
      {"notin: key missing matches", "app", "NotIn", {"web"}, Labels({}), true},
      {"exists: present", "app", "Exists", {}, Labels({{"app", ""}}), true},
      {"exists: missing", "app", "Exists", {}, Labels({{"apps", "x"}}), false},
      {"doesnotexist: missing", "app", "DoesNotExist", {}, Labels({{"tier", "x"}}), true},
      {"doesnotexist: present", "app", "DoesNotExist", {}, Labels({{"app", "x"}}), false},
      {"gt: greater", "cpus", "Gt", {"4"}, Labels({{"cpus", "8"}}), true},
      {"gt: equal", "cpus", "Gt", {"4"}, Labels({{"cpus", "4"}}), false},
      {"gt: smaller", "cpus", "Gt", {"4"}, Labels({{"cpus", "3"}}), false},
      {"gt: leading zeros", "cpus", "Gt", {"04"}, Labels({{"cpus", "0005"}}), true},
      {"gt: negative label", "cpus", "Gt", {"0"}, Labels({{"cpus", "-1"}}), false},
      {"gt: plus sign parses", "cpus", "Gt", {"0"}, Labels({{"cpus", "+1"}}), true},
      {"gt: non-integer label", "cpus", "Gt", {"4"}, Labels({{"cpus", "eight"}}), false},
      {"gt: decimal label", "cpus", "Gt", {"4"}, Labels({{"cpus", "8.5"}}), false},
      {"gt: empty label", "cpus", "Gt", {"4"}, Labels({{"cpus", ""}}), false},
      {"gt: label past int64",
       "cpus",
       "Gt",
       {"4"},
       Labels({{"cpus", "9223372036854775808"}}),
       false},
      {"gt: int64 max label",
       "cpus",
       "Gt",
       {"9223372036854775806"},
       Labels({{"cpus", "9223372036854775807"}}),
       true},
      {"gt: key missing", "cpus", "Gt", {"4"}, Labels({}), false},
      {"lt: smaller", "cpus", "Lt", {"4"}, Labels({{"cpus", "3"}}), true},
      {"lt: equal", "cpus", "Lt", {"4"}, Labels({{"cpus", "4"}}), false},
      {"lt: negative label", "cpus", "Lt", {"0"}, Labels({{"cpus", "-3"}}), true},
      {"lt: non-integer label", "cpus", "Lt", {"4"}, Labels({{"cpus", "1e0"}}), false},
      {"lt: key missing", "cpus", "Lt", {"4"}, Labels({}), false},
  };
  for (const Case& c : cases) {
    const Requirement r = MustRequire(c.key, c.op, c.values);
    EXPECT_EQ(r.Matches(c.labels), c.want) << c.name;
  }
}

TEST(RequirementTest, NormalizesValues) {
  const Requirement in = MustRequire("app", "In", {"web", "db", "web", ""});
  EXPECT_EQ(in.op, SelectorOp::kIn);
  EXPECT_EQ(in.values, (std::vector<std::string>{"", "db", "web"}));
  const Requirement gt = MustRequire("cpus", "Gt", {"0042"});
  EXPECT_EQ(gt.op, SelectorOp::kGt);
  EXPECT_EQ(gt.number, 42);
  EXPECT_EQ(gt.values, (std::vector<std::string>{"0042"}));
  const Requirement exists = MustRequire("example.com/app", "Exists", {});
  EXPECT_EQ(exists.op, SelectorOp::kExists);
  EXPECT_TRUE(exists.values.empty());
}

// --- MakeRequirement validation --------------------------------------------------------------

TEST(MakeRequirementTest, AcceptsValidKeysAndValues) {
  const std::vector<std::string> keys = {
      "app",
      "a",
      "A-b_c.D9",
      "example.com/app",
      "kubernetes.io/hostname",
      "a.b-c.d/x",
      "1/2",
      std::string(63, 'n'),
      std::string(253, 'p') + "/x",
      "topology.kubernetes.io/zone",
  };
  for (const std::string& key : keys) {
    EXPECT_TRUE(MakeRequirement(key, "Exists", {}).ok()) << key;
  }
  const std::vector<std::string> values = {"", "a", "A_b.c-9", std::string(63, 'v'), "007"};
  for (const std::string& value : values) {
    EXPECT_TRUE(MakeRequirement("app", "In", {value}).ok()) << value;
  }
}

TEST(MakeRequirementTest, RejectsInvalidRequirements) {
  struct Case {
    std::string key;
    std::string op;
    std::vector<std::string> values;
    std::string want;  // a substring of the message
  };
  const std::vector<Case> cases = {
      // Keys.
      {"", "Exists", {}, "name part must be non-empty"},
      {"-app", "Exists", {}, "name part must consist of alphanumeric characters"},
      {"app-", "Exists", {}, "name part must consist of alphanumeric characters"},
      {"a b", "Exists", {}, "name part must consist of alphanumeric characters"},
      {std::string(64, 'n'), "Exists", {}, "name part must be no more than 63 characters"},
      {"/app", "Exists", {}, "prefix part must be non-empty"},
      {"app/", "Exists", {}, "name part must be non-empty"},
      {"a/b/c", "Exists", {}, "with an optional DNS subdomain prefix"},
      {"Example.com/app", "Exists", {}, "prefix part a lowercase RFC 1123 subdomain"},
      {"a..b/app", "Exists", {}, "prefix part a lowercase RFC 1123 subdomain"},
      {"a-.b/app", "Exists", {}, "prefix part a lowercase RFC 1123 subdomain"},
      {"a_b.io/app", "Exists", {}, "prefix part a lowercase RFC 1123 subdomain"},
      {std::string(254, 'p') + "/x", "Exists", {}, "prefix part must be no more than 253"},
      // Operators and value counts.
      {"app", "Foo", {"x"}, "unsupported operator \"Foo\""},
      {"app", "in", {"x"}, "unsupported operator \"in\""},
      {"app", "=", {"x"}, "unsupported operator \"=\""},
      {"app", "In", {}, "operator In needs values"},
      {"app", "NotIn", {}, "operator NotIn needs values"},
      {"app", "Exists", {"x"}, "operator Exists takes no values"},
      {"app", "DoesNotExist", {"x"}, "operator DoesNotExist takes no values"},
      {"n", "Gt", {}, "operator Gt needs exactly one value"},
      {"n", "Lt", {"1", "2"}, "operator Lt needs exactly one value"},
      {"n", "Gt", {"abc"}, "value \"abc\" of operator Gt is not an integer"},
      {"n", "Lt", {"1.5"}, "value \"1.5\" of operator Lt is not an integer"},
      {"n", "Gt", {"9223372036854775808"}, "is not an integer"},
      // Gt/Lt values must also be label values, so negative bounds are rejected.
      {"n", "Gt", {"-1"}, "invalid value \"-1\""},
      {"n", "Lt", {"+1"}, "invalid value \"+1\""},
      // Values.
      {"app", "In", {"-web"}, "invalid value \"-web\": a valid label must be an empty string"},
      {"app", "In", {"web", "a b"}, "invalid value \"a b\""},
      {"app", "NotIn", {std::string(64, 'v')}, "must be no more than 63 characters"},
  };
  for (const Case& c : cases) {
    StatusOr<Requirement> r = MakeRequirement(c.key, c.op, c.values);
    ASSERT_FALSE(r.ok()) << c.key << " " << c.op;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    const std::string message(r.status().message());
    EXPECT_NE(message.find(c.want), std::string::npos) << message;
    // Every message names the key.
    EXPECT_NE(message.find("key \"" + c.key + "\""), std::string::npos) << message;
  }
}

TEST(MakeRequirementTest, ReportsEveryProblem) {
  StatusOr<Requirement> r = MakeRequirement("-bad", "Gt", {"x", "-y"});
  ASSERT_FALSE(r.ok());
  const std::string message(r.status().message());
  EXPECT_NE(message.find("invalid key"), std::string::npos) << message;
  EXPECT_NE(message.find("needs exactly one value"), std::string::npos) << message;
  EXPECT_NE(message.find("value \"x\" of operator Gt is not an integer"), std::string::npos);
  EXPECT_NE(message.find("invalid value \"-y\""), std::string::npos) << message;
}

// --- Selector ----------------------------------------------------------------------------------

TEST(SelectorTest, NullSelectorMatchesNothing) {
  StatusOr<Selector> s = Selector::FromLabelSelector(nullptr);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->MatchesNothing());
  EXPECT_FALSE(s->Empty());
  EXPECT_FALSE(s->Matches(Labels({})));
  EXPECT_FALSE(s->Matches(Labels({{"app", "web"}})));
  EXPECT_EQ(s->String(), "");
}

TEST(SelectorTest, EmptySelectorMatchesEverything) {
  const LabelSelector empty;
  StatusOr<Selector> s = Selector::FromLabelSelector(&empty);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->MatchesNothing());
  EXPECT_TRUE(s->Empty());
  EXPECT_TRUE(s->Matches(Labels({})));
  EXPECT_TRUE(s->Matches(Labels({{"app", "web"}})));
  EXPECT_EQ(s->String(), "");
  EXPECT_TRUE(Selector::Everything().Matches(Labels({})));
  EXPECT_FALSE(Selector::Nothing().Matches(Labels({})));
}

TEST(SelectorTest, MatchLabelsAndExpressionsAreAnded) {
  LabelSelector ls;
  ls.match_labels = Labels({{"app", "web"}});
  ls.match_expressions = {
      {"tier", "In", {"frontend", "edge"}},
      {"canary", "DoesNotExist", {}},
      {"zone", "NotIn", {"z1"}},
      {"team", "Exists", {}},
  };
  StatusOr<Selector> s = Selector::FromLabelSelector(&ls);
  ASSERT_TRUE(s.ok()) << s.status();
  struct Case {
    const char* name;
    StringMap labels;
    bool want;
  };
  const std::vector<Case> cases = {
      {"all satisfied", Labels({{"app", "web"}, {"tier", "edge"}, {"team", "a"}}), true},
      {"zone allowed", Labels({{"app", "web"}, {"tier", "edge"}, {"team", "a"}, {"zone", "z2"}}),
       true},
      {"zone excluded", Labels({{"app", "web"}, {"tier", "edge"}, {"team", "a"}, {"zone", "z1"}}),
       false},
      {"wrong app", Labels({{"app", "db"}, {"tier", "edge"}, {"team", "a"}}), false},
      {"app missing", Labels({{"tier", "edge"}, {"team", "a"}}), false},
      {"tier not listed", Labels({{"app", "web"}, {"tier", "backend"}, {"team", "a"}}), false},
      {"canary present", Labels({{"app", "web"}, {"tier", "edge"}, {"team", "a"}, {"canary", ""}}),
       false},
      {"team missing", Labels({{"app", "web"}, {"tier", "edge"}}), false},
      {"no labels", Labels({}), false},
  };
  for (const Case& c : cases) EXPECT_EQ(s->Matches(c.labels), c.want) << c.name;
}

TEST(SelectorTest, StringFormSortsRequirementsByKey) {
  LabelSelector ls;
  ls.match_labels = Labels({{"app", "web"}, {"env", "prod"}});
  ls.match_expressions = {
      {"tier", "In", {"b", "a"}},
      {"canary", "DoesNotExist", {}},
      {"zone", "NotIn", {"z2", "z1", "z3"}},
      {"team", "Exists", {}},
      {"app", "In", {"web"}},
  };
  StatusOr<Selector> s = Selector::FromLabelSelector(&ls);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->String(),
            "app=web,app in (web),!canary,env=prod,team,tier in (a,b),zone notin (z1,z2,z3)");
  ASSERT_EQ(s->requirements().size(), 7u);
  EXPECT_EQ(s->requirements().front().key, "app");
  EXPECT_TRUE(s->requirements().front().equality);
}

TEST(SelectorTest, RejectsBadLabelSelectors) {
  struct Case {
    const char* name;
    LabelSelector selector;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"Gt is for node selectors only",
       {{}, {{"n", "Gt", {"1"}}}},
       "\"Gt\" is not a valid label selector operator"},
      {"Lt is for node selectors only",
       {{}, {{"n", "Lt", {"1"}}}},
       "\"Lt\" is not a valid label selector operator"},
      {"unknown operator",
       {{}, {{"n", "Equals", {"1"}}}},
       "\"Equals\" is not a valid label selector operator"},
      {"bad matchLabels key", {Labels({{"bad key", "v"}}), {}}, "key \"bad key\""},
      {"bad matchLabels value", {Labels({{"app", "-v"}}), {}}, "invalid value \"-v\""},
      {"In without values", {{}, {{"app", "In", {}}}}, "operator In needs values"},
      {"Exists with values", {{}, {{"app", "Exists", {"x"}}}}, "takes no values"},
  };
  for (const Case& c : cases) {
    StatusOr<Selector> s = Selector::FromLabelSelector(&c.selector);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.want), std::string_view::npos)
        << c.name << ": " << s.status();
  }
}

TEST(SelectorTest, FromMap) {
  const Selector everything = Selector::FromMap(StringMap());
  EXPECT_TRUE(everything.Empty());
  EXPECT_TRUE(everything.Matches(Labels({})));
  EXPECT_EQ(everything.String(), "");

  const Selector s = Selector::FromMap(Labels({{"tier", "web"}, {"app", "shop"}}));
  EXPECT_EQ(s.String(), "app=shop,tier=web");
  EXPECT_TRUE(s.Matches(Labels({{"app", "shop"}, {"tier", "web"}, {"extra", "x"}})));
  EXPECT_FALSE(s.Matches(Labels({{"app", "shop"}})));
  EXPECT_FALSE(s.Matches(Labels({{"app", "shop"}, {"tier", "db"}})));

  // Upstream's SelectorFromSet does not validate, and an empty value must be present.
  const Selector loose = Selector::FromMap(Labels({{"not a key!", ""}}));
  EXPECT_EQ(loose.String(), "not a key!=");
  EXPECT_TRUE(loose.Matches(Labels({{"not a key!", ""}})));
  EXPECT_FALSE(loose.Matches(Labels({})));
}

// --- Node selectors ----------------------------------------------------------------------------

NodeSelectorTerm Term(std::vector<NodeSelectorRequirement> expressions,
                      std::vector<NodeSelectorRequirement> fields = {}) {
  return NodeSelectorTerm{std::move(expressions), std::move(fields)};
}

TEST(NodeSelectorTest, TermOperators) {
  const StringMap node = Labels({{"zone", "z1"}, {"cpus", "8"}, {"gpu", "nvidia-a100"}});
  struct Case {
    const char* name;
    NodeSelectorTerm term;
    bool want;
  };
  const std::vector<Case> cases = {
      {"In", Term({{"zone", "In", {"z1", "z2"}}}), true},
      {"In, not listed", Term({{"zone", "In", {"z2"}}}), false},
      {"NotIn", Term({{"zone", "NotIn", {"z2"}}}), true},
      {"NotIn, listed", Term({{"zone", "NotIn", {"z1"}}}), false},
      {"NotIn, key missing", Term({{"rack", "NotIn", {"r1"}}}), true},
      {"Exists", Term({{"cpus", "Exists", {}}}), true},
      {"Exists, missing", Term({{"rack", "Exists", {}}}), false},
      {"DoesNotExist", Term({{"rack", "DoesNotExist", {}}}), true},
      {"DoesNotExist, present", Term({{"zone", "DoesNotExist", {}}}), false},
      {"Gt", Term({{"cpus", "Gt", {"4"}}}), true},
      {"Gt, equal", Term({{"cpus", "Gt", {"8"}}}), false},
      {"Lt", Term({{"cpus", "Lt", {"16"}}}), true},
      {"Lt, equal", Term({{"cpus", "Lt", {"8"}}}), false},
      {"Gt on a non-integer label", Term({{"gpu", "Gt", {"1"}}}), false},
      {"Lt on a non-integer label", Term({{"gpu", "Lt", {"1"}}}), false},
      {"Gt on a missing label", Term({{"rack", "Gt", {"1"}}}), false},
      {"ANDed, all hold", Term({{"zone", "In", {"z1"}}, {"cpus", "Gt", {"4"}}}), true},
      {"ANDed, one fails", Term({{"zone", "In", {"z1"}}, {"cpus", "Gt", {"8"}}}), false},
  };
  for (const Case& c : cases) {
    StatusOr<NodeSelectorTermMatcher> term = NodeSelectorTermMatcher::Compile(c.term);
    ASSERT_TRUE(term.ok()) << c.name << ": " << term.status();
    EXPECT_EQ(term->Matches(node, "node-1"), c.want) << c.name;
    const NodeSelectorMatcher selector = NodeSelectorMatcher::Compile(NodeSelector{{c.term}});
    EXPECT_TRUE(selector.error().ok());
    EXPECT_EQ(selector.Matches(node, "node-1"), c.want) << c.name;
  }
}

TEST(NodeSelectorTest, MatchFieldsMetadataName) {
  const StringMap labels = Labels({{"zone", "z1"}});
  struct Case {
    const char* name;
    NodeSelectorTerm term;
    const char* node_name;
    bool want;
  };
  const std::vector<Case> cases = {
      {"In, same name", Term({}, {{"metadata.name", "In", {"node-1"}}}), "node-1", true},
      {"In, other name", Term({}, {{"metadata.name", "In", {"node-2"}}}), "node-1", false},
      {"NotIn, same name", Term({}, {{"metadata.name", "NotIn", {"node-1"}}}), "node-1", false},
      {"NotIn, other name", Term({}, {{"metadata.name", "NotIn", {"node-2"}}}), "node-1", true},
      {"fields ANDed with labels",
       Term({{"zone", "In", {"z1"}}}, {{"metadata.name", "In", {"node-1"}}}), "node-1", true},
      {"label fails", Term({{"zone", "In", {"z2"}}}, {{"metadata.name", "In", {"node-1"}}}),
       "node-1", false},
      // Upstream builds no fields for a node without a name, and then skips matchFields.
      {"unnamed node skips fields", Term({}, {{"metadata.name", "In", {"node-1"}}}), "", true},
      // Another key reads as the empty string, as a missing field does upstream.
      {"other field key, In empty", Term({}, {{"metadata.namespace", "In", {""}}}), "node-1", true},
      {"other field key, In value", Term({}, {{"metadata.namespace", "In", {"x"}}}), "node-1",
       false},
      {"other field key, NotIn", Term({}, {{"spec.foo", "NotIn", {"x"}}}), "node-1", true},
  };
  for (const Case& c : cases) {
    StatusOr<NodeSelectorTermMatcher> term = NodeSelectorTermMatcher::Compile(c.term);
    ASSERT_TRUE(term.ok()) << c.name << ": " << term.status();
    EXPECT_EQ(term->Matches(labels, c.node_name), c.want) << c.name;
  }
}

TEST(NodeSelectorTest, InvalidMatchFields) {
  struct Case {
    const char* name;
    NodeSelectorRequirement field;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"no value", {"metadata.name", "In", {}}, "needs exactly one value"},
      {"two values", {"metadata.name", "In", {"a", "b"}}, "needs exactly one value"},
      {"Exists", {"metadata.name", "Exists", {}}, "unsupported operator \"Exists\""},
      {"Gt", {"metadata.name", "Gt", {"1"}}, "must be In or NotIn"},
  };
  for (const Case& c : cases) {
    StatusOr<NodeSelectorTermMatcher> term = NodeSelectorTermMatcher::Compile(Term({}, {c.field}));
    ASSERT_FALSE(term.ok()) << c.name;
    EXPECT_NE(term.status().message().find(c.want), std::string_view::npos) << term.status();
    EXPECT_NE(term.status().message().find("matchFields[0]"), std::string_view::npos);
  }
}

TEST(NodeSelectorTest, EmptyTermMatchesNothing) {
  StatusOr<NodeSelectorTermMatcher> term = NodeSelectorTermMatcher::Compile(NodeSelectorTerm{});
  ASSERT_TRUE(term.ok());
  EXPECT_FALSE(term->Matches(Labels({{"zone", "z1"}}), "node-1"));

  const NodeSelectorMatcher only_empty = NodeSelectorMatcher::Compile(NodeSelector{{{}}});
  EXPECT_TRUE(only_empty.error().ok());
  EXPECT_FALSE(only_empty.Matches(Labels({}), "node-1"));

  // No terms at all matches nothing either.
  const NodeSelectorMatcher none = NodeSelectorMatcher::Compile(NodeSelector{});
  EXPECT_TRUE(none.error().ok());
  EXPECT_FALSE(none.Matches(Labels({}), "node-1"));

  // An empty term next to a matching one does not stop the match.
  const NodeSelectorMatcher mixed =
      NodeSelectorMatcher::Compile(NodeSelector{{{}, Term({{"zone", "Exists", {}}})}});
  EXPECT_TRUE(mixed.Matches(Labels({{"zone", "z1"}}), "node-1"));
}

TEST(NodeSelectorTest, TermsAreOred) {
  const NodeSelectorMatcher selector = NodeSelectorMatcher::Compile(NodeSelector{{
      Term({{"zone", "In", {"z1"}}}),
      Term({{"zone", "In", {"z2"}}, {"ssd", "Exists", {}}}),
  }});
  EXPECT_TRUE(selector.error().ok());
  EXPECT_TRUE(selector.Matches(Labels({{"zone", "z1"}}), "n"));
  EXPECT_TRUE(selector.Matches(Labels({{"zone", "z2"}, {"ssd", ""}}), "n"));
  EXPECT_FALSE(selector.Matches(Labels({{"zone", "z2"}}), "n"));
  EXPECT_FALSE(selector.Matches(Labels({{"zone", "z3"}, {"ssd", ""}}), "n"));
}

TEST(NodeSelectorTest, InvalidTermIsIgnoredWhileValidSiblingStillMatches) {
  const NodeSelectorMatcher selector = NodeSelectorMatcher::Compile(NodeSelector{{
      // Invalid: Gt needs an integer, and the second requirement has a bad key. The valid
      // requirement in the same term does not rescue it.
      Term({{"zone", "In", {"z1"}}, {"cpus", "Gt", {"many"}}, {"bad key", "Exists", {}}}),
      Term({}, {{"metadata.name", "In", {"a", "b"}}}),  // invalid: two values
      Term({{"zone", "In", {"z2"}}}),                   // valid
  }});
  ASSERT_FALSE(selector.error().ok());
  EXPECT_EQ(selector.error().code(), StatusCode::kInvalidArgument);
  const std::string message(selector.error().message());
  EXPECT_NE(message.find("nodeSelectorTerms[0]: matchExpressions[1]: label requirement on key "
                         "\"cpus\": value \"many\" of operator Gt is not an integer"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("matchExpressions[2]: label requirement on key \"bad key\""),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("nodeSelectorTerms[1]: matchFields[0]"), std::string::npos) << message;
  EXPECT_EQ(message.find("nodeSelectorTerms[2]"), std::string::npos) << message;

  EXPECT_TRUE(selector.Matches(Labels({{"zone", "z2"}}), "a"));
  // The invalid terms never match, even where their valid parts would.
  EXPECT_FALSE(selector.Matches(Labels({{"zone", "z1"}, {"cpus", "8"}}), "a"));
}

TEST(NodeSelectorTest, MatchesNode) {
  Node node;
  node.metadata.name = "node-1";
  node.metadata.labels = Labels({{"kubernetes.io/hostname", "node-1"}});
  const NodeSelectorMatcher by_name =
      NodeSelectorMatcher::Compile(NodeSelector{{Term({}, {{"metadata.name", "In", {"node-1"}}})}});
  EXPECT_TRUE(by_name.Matches(node));
  const NodeSelectorMatcher by_label = NodeSelectorMatcher::Compile(
      NodeSelector{{Term({{"kubernetes.io/hostname", "NotIn", {"node-1"}}})}});
  EXPECT_FALSE(by_label.Matches(node));
}

}  // namespace
}  // namespace stowage::api::labels_test
