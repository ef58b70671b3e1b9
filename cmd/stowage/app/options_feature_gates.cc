// The feature gates of kube-scheduler 1.36.3 and the --feature-gates, --emulated-version and
// --min-compatibility-version semantics of component-base's ComponentGlobalsRegistry and
// featuregate packages.
//
// The table holds every gate of the binary's registry (not only the scheduler's: upstream shares
// one registry with the other components and accepts all of its names), each with its stage,
// default and lock at emulation version 1.36, and the declared dependencies between gates. It
// was generated from the v1.36.3 registry (featuregate GetAll and Dependencies) and must be
// regenerated for another release.
#include <algorithm>
#include <string>

#include "cmd/stowage/app/options.h"

namespace stowage::app {
namespace {

struct Dependency {
  std::string_view feature;
  std::vector<std::string_view> requires_;
};

const std::vector<Dependency>& Dependencies() {
  static const auto* deps = new std::vector<Dependency>{
      {"AuthorizeNodeWithSelectors", {"AuthorizeWithSelectors"}},
      {"ClusterTrustBundleProjection", {"ClusterTrustBundle"}},
      {"DRAAdminAccess", {"DynamicResourceAllocation"}},
      {"DRAConsumableCapacity", {"DynamicResourceAllocation"}},
      {"DRADeviceBindingConditions", {"DRAResourceClaimDeviceStatus", "DynamicResourceAllocation"}},
      {"DRADeviceTaintRules", {"DRADeviceTaints"}},
      {"DRADeviceTaints", {"DynamicResourceAllocation"}},
      {"DRAExtendedResource", {"DynamicResourceAllocation"}},
      {"DRAListTypeAttributes", {"DynamicResourceAllocation"}},
      {"DRANodeAllocatableResources", {"DynamicResourceAllocation"}},
      {"DRAPartitionableDevices", {"DynamicResourceAllocation"}},
      {"DRAPrioritizedList", {"DynamicResourceAllocation"}},
      {"DRAResourceClaimGranularStatusAuthorization",
       {"DRAResourceClaimDeviceStatus", "DynamicResourceAllocation"}},
      {"DRAResourcePoolStatus", {"DynamicResourceAllocation"}},
      {"DRASchedulerFilterTimeout", {"DynamicResourceAllocation"}},
      {"DRAWorkloadResourceClaims", {"DynamicResourceAllocation", "GenericWorkload"}},
      {"DeclarativeValidationBeta", {"DeclarativeValidation"}},
      {"DeclarativeValidationTakeover", {"DeclarativeValidation"}},
      {"DisableAllocatorDualWrite", {"MultiCIDRServiceAllocator"}},
      {"ExtendWebSocketsToKubelet", {"NodeDeclaredFeatures"}},
      {"GangScheduling", {"GenericWorkload"}},
      {"GracefulNodeShutdownBasedOnPodPriority", {"GracefulNodeShutdown"}},
      {"ImageVolumeWithDigest", {"ImageVolume"}},
      {"InPlacePodLevelResourcesVerticalScaling",
       {"InPlacePodVerticalScaling", "NodeDeclaredFeatures", "PodLevelResources"}},
      {"InPlacePodVerticalScalingExclusiveCPUs", {"InPlacePodVerticalScaling"}},
      {"InPlacePodVerticalScalingExclusiveMemory", {"InPlacePodVerticalScaling"}},
      {"InPlacePodVerticalScalingInitContainers",
       {"InPlacePodVerticalScaling", "NodeDeclaredFeatures"}},
      {"MatchLabelKeysInPodTopologySpreadSelectorMerge", {"MatchLabelKeysInPodTopologySpread"}},
      {"PodCertificateRequest", {"AuthorizeNodeWithSelectors"}},
      {"PodLevelResourceManagers", {"PodLevelResources"}},
      {"PodLifecycleSleepActionAllowZero", {"PodLifecycleSleepAction"}},
      {"ProcMountType", {"UserNamespacesSupport"}},
      {"ResourceHealthStatus", {"DynamicResourceAllocation"}},
      {"ResourceHealthStatusMessage", {"ResourceHealthStatus"}},
      {"RestartAllContainersOnContainerExits", {"ContainerRestartRules", "NodeDeclaredFeatures"}},
      {"ServiceAccountTokenNodeBinding", {"ServiceAccountTokenNodeBindingValidation"}},
      {"StaleControllerConsistencyDaemonSet", {"AtomicFIFO"}},
      {"StaleControllerConsistencyJob", {"AtomicFIFO"}},
      {"StaleControllerConsistencyReplicaSet", {"AtomicFIFO"}},
      {"StaleControllerConsistencyStatefulSet", {"AtomicFIFO"}},
      {"StorageVersionAPI", {"APIServerIdentity"}},
      {"StructuredAuthenticationConfigurationEgressSelector",
       {"StructuredAuthenticationConfiguration"}},
      {"StructuredAuthenticationConfigurationJWKSMetrics",
       {"StructuredAuthenticationConfiguration"}},
      {"TopologyAwareWorkloadScheduling", {"GenericWorkload"}},
      {"UnknownVersionInteroperabilityProxy", {"APIServerIdentity"}},
      {"UserNamespacesHostNetworkSupport", {"NodeDeclaredFeatures", "UserNamespacesSupport"}},
      {"WindowsGracefulNodeShutdown", {"GracefulNodeShutdown"}},
      {"WorkloadAwarePreemption", {"GangScheduling"}},
      {"WorkloadWithJob", {"GenericWorkload"}},
  };
  return *deps;
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

// upstream's utilerrors aggregate text.
Status Aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return FailedPreconditionError(errors[0]);
  return FailedPreconditionError("[" + Join(errors, ", ") + "]");
}

struct MinorVersion {
  int major = 0;
  int minor = 0;
  std::string String() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend auto operator<=>(const MinorVersion&, const MinorVersion&) = default;
};

// apimachinery's version.Parse (a "generic" version: "v1.36", "1.36.0"), then the registry's
// rule that no patch is allowed. component names the flag entry in the patch error.
StatusOr<MinorVersion> ParseMinorVersion(std::string_view text, std::string_view component) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  std::string current;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      current += c;
    } else if (c == '.' && !current.empty() && i + 1 < s.size() && s[i + 1] >= '0' &&
               s[i + 1] <= '9') {
      parts.push_back(current);
      current.clear();
    } else {
      break;
    }
  }
  if (current.empty()) {
    return FailedPreconditionError("could not parse \"" + std::string(text) + "\" as version");
  }
  parts.push_back(current);
  if (parts.size() < 2) {
    return FailedPreconditionError("illegal version string \"" + std::string(text) + "\"");
  }
  if (parts[0].size() > 1 && parts[0][0] == '0') {
    return FailedPreconditionError("illegal zero-prefixed version component \"" + parts[0] +
                                   "\" in \"" + std::string(text) + "\"");
  }
  MinorVersion v;
  for (size_t k = 0; k < parts.size() && k < 3; ++k) {
    if (parts[k].size() > 9) {
      return FailedPreconditionError("illegal non-numeric version component \"" + parts[k] +
                                     "\" in \"" + std::string(text) + "\"");
    }
  }
  v.major = std::stoi(parts[0]);
  v.minor = std::stoi(parts[1]);
  if (parts.size() > 2 && std::stoll(parts[2]) != 0) {
    return FailedPreconditionError("patch version not allowed, got: " + std::string(component) +
                                   "=" + v.String() + "." + std::to_string(std::stoll(parts[2])));
  }
  return v;
}

// toVersionMap: "[component=]major.minor" items; the component defaults to "kube", the only
// one registered.
StatusOr<std::optional<MinorVersion>> ParseVersionFlag(const std::vector<std::string>& items) {
  std::optional<MinorVersion> kube;
  for (const std::string& item : items) {
    std::string component = "kube";
    std::string value = item;
    if (const size_t eq = item.find('='); eq != std::string::npos) {
      auto trim = [](std::string s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
        return s;
      };
      component = trim(item.substr(0, eq));
      value = trim(item.substr(eq + 1));
    }
    auto v = ParseMinorVersion(value, component);
    if (!v.ok()) return v.status();
    if (component == "kube" && kube) {
      return FailedPreconditionError("duplicate version flag, kube=" + kube->String() +
                                     " and kube=" + v->String());
    }
    if (component != "kube") {
      return FailedPreconditionError("component not registered: " + component);
    }
    kube = *v;
  }
  return kube;
}

constexpr MinorVersion kBinaryVersion{1, 36};
constexpr MinorVersion kVersionFloor{1, 33};
constexpr MinorVersion kDefaultMinCompatibility{1, 35};

}  // namespace

const std::vector<FeatureGateSpec>& KnownFeatureGates() {
  static const auto* gates = new std::vector<FeatureGateSpec>{
      {"APIResponseCompression", "BETA", true, false},
      {"APIServerIdentity", "BETA", true, false},
      {"APIServerTracing", "GA", true, true},
      {"APIServingWithRoutine", "ALPHA", false, false},
      {"AggregatedDiscoveryRemoveBetaType", "DEPRECATED", true, true},
      {"AllAlpha", "ALPHA", false, false},
      {"AllBeta", "BETA", false, false},
      {"AllowDNSOnlyNodeCSR", "DEPRECATED", false, false},
      {"AllowInsecureKubeletCertificateSigningRequests", "DEPRECATED", false, false},
      {"AllowOverwriteTerminationGracePeriodSeconds", "DEPRECATED", false, true},
      {"AllowParsingUserUIDFromCertAuth", "BETA", true, false},
      {"AllowServiceExternalIPs", "GA", true, false},
      {"AllowUnsafeMalformedObjectDeletion", "ALPHA", false, false},
      {"AnonymousAuthConfigurableEndpoints", "GA", true, true},
      {"AnyVolumeDataSource", "GA", true, true},
      {"AtomicFIFO", "BETA", true, false},
      {"AuthorizeNodeWithSelectors", "GA", true, true},
      {"AuthorizePodWebsocketUpgradeCreatePermission", "BETA", true, false},
      {"AuthorizeWithSelectors", "GA", true, true},
      {"BtreeWatchCache", "GA", true, true},
      {"CBORServingAndStorage", "ALPHA", false, false},
      {"CPUManagerPolicyAlphaOptions", "ALPHA", false, false},
      {"CPUManagerPolicyBetaOptions", "BETA", true, false},
      {"CPUManagerPolicyOptions", "GA", true, true},
      {"CRDObservedGenerationTracking", "BETA", true, false},
      {"CRDValidationRatcheting", "GA", true, true},
      {"CRIListStreaming", "ALPHA", false, false},
      {"CSIServiceAccountTokenSecrets", "GA", true, true},
      {"CSIVolumeHealth", "ALPHA", false, false},
      {"ChangeContainerStatusOnKubeletRestart", "DEPRECATED", false, false},
      {"ClearingNominatedNodeNameAfterBinding", "BETA", true, false},
      {"ClientsAllowCARotation", "BETA", true, false},
      {"ClientsAllowCBOR", "ALPHA", false, false},
      {"ClientsAllowTLSCacheGC", "BETA", true, false},
      {"ClientsPreferCBOR", "ALPHA", false, false},
      {"CloudControllerManagerWatchBasedRoutesReconciliation", "ALPHA", false, false},
      {"CloudControllerManagerWebhook", "ALPHA", false, false},
      {"ClusterTrustBundle", "BETA", false, false},
      {"ClusterTrustBundleProjection", "BETA", false, false},
      {"ComponentFlagz", "BETA", true, false},
      {"ComponentStatusz", "BETA", true, false},
      {"ConcurrentWatchObjectDecode", "BETA", false, false},
      {"ConsistentListFromCache", "GA", true, true},
      {"ConstrainedImpersonation", "BETA", true, false},
      {"ContainerCheckpoint", "BETA", true, false},
      {"ContainerRestartRules", "BETA", true, false},
      {"ContainerStopSignals", "ALPHA", false, false},
      {"ContextualLogging", "BETA", true, false},
      {"CoordinatedLeaderElection", "BETA", false, false},
      {"CrossNamespaceVolumeDataSource", "ALPHA", false, false},
      {"CustomCPUCFSQuotaPeriod", "GA", true, false},
      {"CustomResourceFieldSelectors", "GA", true, true},
      {"DRAAdminAccess", "GA", true, true},
      {"DRAConsumableCapacity", "BETA", true, false},
      {"DRADeviceBindingConditions", "BETA", true, false},
      {"DRADeviceTaintRules", "BETA", false, false},
      {"DRADeviceTaints", "BETA", true, false},
      {"DRAExtendedResource", "BETA", true, false},
      {"DRAListTypeAttributes", "ALPHA", false, false},
      {"DRANodeAllocatableResources", "ALPHA", false, false},
      {"DRAPartitionableDevices", "BETA", true, false},
      {"DRAPrioritizedList", "GA", true, false},
      {"DRAResourceClaimDeviceStatus", "BETA", true, false},
      {"DRAResourceClaimGranularStatusAuthorization", "BETA", true, false},
      {"DRAResourcePoolStatus", "ALPHA", false, false},
      {"DRASchedulerFilterTimeout", "BETA", true, false},
      {"DRAWorkloadResourceClaims", "ALPHA", false, false},
      {"DeclarativeValidation", "GA", true, true},
      {"DeclarativeValidationBeta", "BETA", true, false},
      {"DeclarativeValidationTakeover", "DEPRECATED", false, false},
      {"DeploymentReplicaSetTerminatingReplicas", "BETA", true, false},
      {"DetectCacheInconsistency", "BETA", true, false},
      {"DisableAllocatorDualWrite", "GA", true, true},
      {"DisableCPUQuotaWithExclusiveCPUs", "DEPRECATED", true, false},
      {"DisableNodeKubeProxyVersion", "DEPRECATED", true, true},
      {"DynamicResourceAllocation", "GA", true, true},
      {"EnvFiles", "BETA", true, false},
      {"EventedPLEG", "ALPHA", false, false},
      {"ExecProbeTimeout", "GA", true, true},
      {"ExtendWebSocketsToKubelet", "BETA", true, false},
      {"ExternalServiceAccountTokenSigner", "GA", true, true},
      {"GangScheduling", "ALPHA", false, false},
      {"GenericWorkload", "ALPHA", false, false},
      {"GitRepoVolumeDriver", "DEPRECATED", false, true},
      {"GracefulNodeShutdown", "BETA", true, false},
      {"GracefulNodeShutdownBasedOnPodPriority", "BETA", true, false},
      {"HPAConfigurableTolerance", "BETA", true, false},
      {"HPAScaleToZero", "ALPHA", false, false},
      {"HostnameOverride", "BETA", true, false},
      {"ImageMaximumGCAge", "GA", true, true},
      {"ImageVolume", "GA", true, true},
      {"ImageVolumeWithDigest", "ALPHA", false, false},
      {"InOrderInformers", "GA", true, true},
      {"InOrderInformersBatchProcess", "BETA", true, false},
      {"InPlacePodLevelResourcesVerticalScaling", "BETA", true, false},
      {"InPlacePodVerticalScaling", "GA", true, true},
      {"InPlacePodVerticalScalingExclusiveCPUs", "ALPHA", false, false},
      {"InPlacePodVerticalScalingExclusiveMemory", "ALPHA", false, false},
      {"InPlacePodVerticalScalingInitContainers", "BETA", true, false},
      {"InformerResourceVersion", "GA", true, false},
      {"JobBackoffLimitPerIndex", "GA", true, true},
      {"JobManagedBy", "GA", true, true},
      {"JobPodReplacementPolicy", "GA", true, true},
      {"JobSuccessPolicy", "GA", true, true},
      {"KMSv1", "DEPRECATED", false, false},
      {"KubeletCgroupDriverFromCRI", "GA", true, true},
      {"KubeletCrashLoopBackOffMax", "BETA", true, false},
      {"KubeletEnsureSecretPulledImages", "BETA", true, false},
      {"KubeletFineGrainedAuthz", "GA", true, true},
      {"KubeletInUserNamespace", "ALPHA", false, false},
      {"KubeletPSI", "GA", true, true},
      {"KubeletPodResourcesDynamicResources", "GA", true, true},
      {"KubeletPodResourcesGet", "GA", true, true},
      {"KubeletPodResourcesListUseActivePods", "DEPRECATED", true, false},
      {"KubeletRegistrationGetOnExistsOnly", "DEPRECATED", false, false},
      {"KubeletSeparateDiskGC", "BETA", true, false},
      {"KubeletServiceAccountTokenForCredentialProviders", "BETA", true, false},
      {"KubeletTracing", "GA", true, true},
      {"ListFromCacheSnapshot", "BETA", true, false},
      {"LocalStorageCapacityIsolationFSQuotaMonitoring", "BETA", false, false},
      {"LogarithmicScaleDown", "GA", true, true},
      {"LoggingAlphaOptions", "ALPHA", false, false},
      {"LoggingBetaOptions", "BETA", true, false},
      {"ManifestBasedAdmissionControlConfig", "ALPHA", false, false},
      {"MatchLabelKeysInPodAffinity", "GA", true, true},
      {"MatchLabelKeysInPodTopologySpread", "BETA", true, false},
      {"MatchLabelKeysInPodTopologySpreadSelectorMerge", "BETA", true, false},
      {"MaxUnavailableStatefulSet", "BETA", false, false},
      {"MemoryQoS", "ALPHA", false, false},
      {"MultiCIDRServiceAllocator", "GA", true, true},
      {"MutableCSINodeAllocatableCount", "GA", true, true},
      {"MutablePVNodeAffinity", "ALPHA", false, false},
      {"MutablePodResourcesForSuspendedJobs", "BETA", true, false},
      {"MutableSchedulingDirectivesForSuspendedJobs", "BETA", true, false},
      {"MutatingAdmissionPolicy", "GA", true, false},
      {"NFTablesProxyMode", "GA", true, true},
      {"NativeHistograms", "ALPHA", false, false},
      {"NodeDeclaredFeatures", "BETA", true, false},
      {"NodeInclusionPolicyInPodTopologySpread", "GA", true, true},
      {"NodeLogQuery", "GA", true, true},
      {"NodeSwap", "GA", true, true},
      {"NominatedNodeNameForExpectation", "BETA", true, false},
      {"OpenAPIEnums", "BETA", true, false},
      {"OpportunisticBatching", "BETA", true, false},
      {"OrderedNamespaceDeletion", "GA", true, true},
      {"PLEGOnDemandRelist", "BETA", true, false},
      {"PersistentVolumeClaimUnusedSinceTime", "ALPHA", false, false},
      {"PodAndContainerStatsFromCRI", "ALPHA", false, false},
      {"PodCertificateRequest", "BETA", false, false},
      {"PodDeletionCost", "BETA", true, false},
      {"PodLevelResourceManagers", "ALPHA", false, false},
      {"PodLevelResources", "BETA", true, false},
      {"PodLifecycleSleepAction", "GA", true, true},
      {"PodLifecycleSleepActionAllowZero", "GA", true, true},
      {"PodLogsQuerySplitStreams", "ALPHA", false, false},
      {"PodObservedGenerationTracking", "GA", true, true},
      {"PodReadyToStartContainersCondition", "BETA", true, false},
      {"PodSchedulingReadiness", "GA", true, true},
      {"PodTopologyLabelsAdmission", "BETA", true, false},
      {"PodsAPI", "ALPHA", false, false},
      {"PortForwardWebsockets", "BETA", true, false},
      {"PreferSameTrafficDistribution", "GA", true, true},
      {"PreventStaticPodAPIReferences", "BETA", true, false},
      {"ProcMountType", "GA", true, true},
      {"QOSReserved", "ALPHA", false, false},
      {"RecoverVolumeExpansionFailure", "GA", true, true},
      {"RecursiveReadOnlyMounts", "GA", true, true},
      {"ReduceDefaultCrashLoopBackOffDecay", "ALPHA", false, false},
      {"RelaxedDNSSearchValidation", "GA", true, true},
      {"RelaxedEnvironmentVariableValidation", "GA", true, true},
      {"RelaxedServiceNameValidation", "BETA", true, false},
      {"ReloadKubeletClientCAFile", "BETA", true, false},
      {"ReloadKubeletServerCertificateFile", "BETA", true, false},
      {"RemoteRequestHeaderUID", "BETA", true, false},
      {"ResilientWatchCacheInitialization", "GA", true, true},
      {"ResourceHealthStatus", "BETA", true, false},
      {"ResourceHealthStatusMessage", "BETA", true, false},
      {"RestartAllContainersOnContainerExits", "BETA", true, false},
      {"RetryGenerateName", "GA", true, true},
      {"RotateKubeletServerCertificate", "BETA", true, false},
      {"RuntimeClassInImageCriApi", "ALPHA", false, false},
      {"SELinuxChangePolicy", "GA", true, true},
      {"SELinuxMount", "BETA", false, false},
      {"SELinuxMountReadWriteOncePod", "GA", true, true},
      {"SchedulerAsyncAPICalls", "BETA", false, false},
      {"SchedulerAsyncPreemption", "BETA", true, false},
      {"SchedulerPopFromBackoffQ", "BETA", true, false},
      {"SchedulerQueueingHints", "GA", true, true},
      {"SeparateCacheWatchRPC", "DEPRECATED", false, true},
      {"SeparateTaintEvictionController", "GA", true, true},
      {"ServiceAccountNodeAudienceRestriction", "BETA", true, false},
      {"ServiceAccountTokenJTI", "GA", true, true},
      {"ServiceAccountTokenNodeBinding", "GA", true, true},
      {"ServiceAccountTokenNodeBindingValidation", "GA", true, true},
      {"ServiceAccountTokenPodNodeInfo", "GA", true, true},
      {"ServiceCIDRStatusFieldWiping", "DEPRECATED", true, false},
      {"ShardedListAndWatch", "ALPHA", false, false},
      {"SidecarContainers", "GA", true, true},
      {"SizeBasedListCostEstimate", "BETA", true, false},
      {"StaleControllerConsistencyDaemonSet", "BETA", true, false},
      {"StaleControllerConsistencyJob", "BETA", true, false},
      {"StaleControllerConsistencyReplicaSet", "BETA", true, false},
      {"StaleControllerConsistencyStatefulSet", "BETA", true, false},
      {"StatefulSetSemanticRevisionComparison", "BETA", true, false},
      {"StorageCapacityScoring", "ALPHA", false, false},
      {"StorageNamespaceIndex", "DEPRECATED", true, false},
      {"StorageVersionAPI", "ALPHA", false, false},
      {"StorageVersionHash", "BETA", true, false},
      {"StorageVersionMigrator", "BETA", false, false},
      {"StreamingCollectionEncodingToJSON", "GA", true, true},
      {"StreamingCollectionEncodingToProtobuf", "GA", true, true},
      {"StrictIPCIDRValidation", "BETA", true, false},
      {"StructuredAuthenticationConfiguration", "GA", true, true},
      {"StructuredAuthenticationConfigurationEgressSelector", "BETA", true, false},
      {"StructuredAuthenticationConfigurationJWKSMetrics", "BETA", true, false},
      {"SupplementalGroupsPolicy", "GA", true, true},
      {"SystemdWatchdog", "GA", true, true},
      {"TaintTolerationComparisonOperators", "ALPHA", false, false},
      {"TokenRequestServiceAccountUIDValidation", "BETA", true, false},
      {"TopologyAwareWorkloadScheduling", "ALPHA", false, false},
      {"TopologyManagerPolicyAlphaOptions", "ALPHA", false, false},
      {"TopologyManagerPolicyBetaOptions", "BETA", true, false},
      {"TopologyManagerPolicyOptions", "GA", true, true},
      {"TranslateStreamCloseWebsocketRequests", "BETA", true, false},
      {"UnauthenticatedHTTP2DOSMitigation", "BETA", true, false},
      {"UnknownVersionInteroperabilityProxy", "BETA", true, false},
      {"UnlockWhileProcessingFIFO", "BETA", true, false},
      {"UserNamespacesHostNetworkSupport", "ALPHA", false, false},
      {"UserNamespacesSupport", "GA", true, true},
      {"VolumeAttributesClass", "GA", true, true},
      {"VolumeLimitScaling", "ALPHA", false, false},
      {"WatchCacheInitializationPostStartHook", "BETA", true, false},
      {"WatchList", "BETA", true, false},
      {"WatchListClient", "BETA", true, false},
      {"WinDSR", "GA", true, true},
      {"WinOverlay", "GA", true, true},
      {"WindowsCPUAndMemoryAffinity", "ALPHA", false, false},
      {"WindowsGracefulNodeShutdown", "BETA", true, false},
      {"WindowsHostNetwork", "DEPRECATED", false, false},
      {"WorkloadAwarePreemption", "ALPHA", false, false},
      {"WorkloadWithJob", "ALPHA", false, false},
  };
  return *gates;
}

const FeatureGateSpec* FindFeatureGate(std::string_view name) {
  const auto& gates = KnownFeatureGates();
  auto it = std::lower_bound(gates.begin(), gates.end(), name,
                             [](const FeatureGateSpec& g, std::string_view n) {
                               return g.name < n;
                             });
  return (it != gates.end() && it->name == name) ? &*it : nullptr;
}

bool FeatureGateOptions::Enabled(std::string_view gate) const {
  if (auto it = explicit_gates.find(gate); it != explicit_gates.end()) return it->second;
  const FeatureGateSpec* spec = FindFeatureGate(gate);
  return spec != nullptr && spec->default_value;
}

namespace internal {

std::string FeatureGatesUsage() {
  std::vector<std::string> known;
  for (const FeatureGateSpec& g : KnownFeatureGates()) {
    if (g.stage != "ALPHA" && g.stage != "BETA") continue;  // GA and deprecated are not listed
    known.push_back("kube:" + std::string(g.name) + "=true|false (" + std::string(g.stage) +
                    " - default=" + (g.default_value ? "true" : "false") + ")");
  }
  std::sort(known.begin(), known.end());
  return "Comma-separated list of component:key=value pairs that describe feature gates for "
         "alpha/experimental features of different components.\n"
         "If the component is not specified, defaults to \"kube\". This flag can be repeatedly "
         "invoked. For example: --feature-gates 'wardle:featureA=true,wardle:featureB=false' "
         "--feature-gates 'kube:featureC=true'Options are:\n" +
         Join(known, "\n");
}

std::string VersionFlagOptions(bool emulation) {
  // stowage implements the 1.36 behaviour only, so it cannot emulate an older release.
  if (emulation) return "kube=" + kBinaryVersion.String() + ".." + kBinaryVersion.String() +
                        "(default:" + kBinaryVersion.String() + ")";
  return "kube=" + kVersionFloor.String() + ".." + kBinaryVersion.String() +
         "(default:" + kDefaultMinCompatibility.String() + ")";
}

// ComponentGlobalsRegistry.Set and Validate for the "kube" component.
Status ResolveFeatureGates(FeatureGateOptions& fg, std::vector<std::string>& warnings) {
  auto emulation = ParseVersionFlag(fg.emulated_version);
  if (!emulation.ok()) return emulation.status();
  auto min_compat = ParseVersionFlag(fg.min_compatibility_version);
  if (!min_compat.ok()) return min_compat.status();
  const MinorVersion emu = emulation->value_or(kBinaryVersion);
  const MinorVersion min = min_compat->value_or(kDefaultMinCompatibility);
  std::vector<std::string> version_errors;
  if (emu > kBinaryVersion || emu < kVersionFloor) {
    version_errors.push_back("emulation version " + emu.String() + " is not between [" +
                             kVersionFloor.String() + ", " + kBinaryVersion.String() + ".0]");
  } else if (emu != kBinaryVersion) {
    version_errors.push_back("emulation version " + emu.String() +
                             " is not supported: stowage implements kube-scheduler " +
                             kBinaryVersion.String() + " only");
  }
  if (min > emu || min < kVersionFloor) {
    version_errors.push_back("minCompatibilityVersion version " + min.String() +
                             " is not between [" + kVersionFloor.String() + ", " + emu.String() +
                             "]");
  }
  if (!version_errors.empty()) return Aggregate(version_errors);

  // --feature-gates: "" (no component) and "kube" name the same component.
  if (fg.raw.count("") != 0 && fg.raw.count("kube") != 0) {
    return FailedPreconditionError(
        "set kube feature gates with default empty prefix or kube: prefix consistently, do not "
        "mix use");
  }
  std::vector<std::string> items;
  for (const auto& [component, values] : fg.raw) {
    if (component != "" && component != "kube") {
      return FailedPreconditionError("component not registered: " + component);
    }
    items.insert(items.end(), values.begin(), values.end());
  }
  // featureGate.Set: "Name=bool" items; the last value of a name wins.
  std::map<std::string, bool> requested;
  for (const std::string& joined : items) {
    size_t start = 0;
    while (start <= joined.size()) {
      const size_t comma = std::min(joined.find(',', start), joined.size());
      const std::string item = joined.substr(start, comma - start);
      start = comma + 1;
      if (item.empty()) continue;
      auto trim = [](std::string s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
        return s;
      };
      const size_t eq = item.find('=');
      const std::string key = trim(item.substr(0, eq));
      if (eq == std::string::npos) return FailedPreconditionError("missing bool value for " + key);
      const std::string value = trim(item.substr(eq + 1));
      auto b = ParseGoBool(value);
      if (!b.ok()) {
        return FailedPreconditionError("invalid value of " + key + "=" + value +
                                       ", err: " + std::string(b.status().message()));
      }
      requested[key] = *b;
    }
  }
  // unsafeSetFromMap, in name order (upstream walks a Go map).
  std::vector<std::string> errors;
  std::map<std::string, bool, std::less<>> enabled;
  for (const auto& [name, value] : requested) {
    const FeatureGateSpec* spec = FindFeatureGate(name);
    if (spec == nullptr) return FailedPreconditionError("unrecognized feature gate: " + name);
    if (spec->locked && spec->default_value != value) {
      errors.push_back("cannot set feature gate " + name + " to " + (value ? "true" : "false") +
                       ", feature is locked to " + (spec->default_value ? "true" : "false"));
      continue;
    }
    enabled[name] = value;
    if (spec->stage == "DEPRECATED") {
      warnings.push_back("setting deprecated feature gate " + name + "=" +
                         (value ? "true" : "false") + ". It will be removed in a future release.");
    } else if (spec->stage == "GA") {
      warnings.push_back("setting GA feature gate " + name + "=" + (value ? "true" : "false") +
                         ". It will be removed in a future release.");
    }
  }
  if (!errors.empty()) return Aggregate(errors);
  // AllAlpha / AllBeta set every alpha / beta gate that was not set explicitly.
  using Special = std::pair<std::string_view, std::string_view>;
  for (const auto& [special, stage] : {Special{"AllAlpha", "ALPHA"}, Special{"AllBeta", "BETA"}}) {
    auto it = requested.find(std::string(special));
    if (it == requested.end()) continue;
    for (const FeatureGateSpec& g : KnownFeatureGates()) {
      if (g.name == "AllAlpha" || g.name == "AllBeta" || g.stage != stage) continue;
      if (requested.count(std::string(g.name)) == 0) enabled[std::string(g.name)] = it->second;
    }
  }
  auto is_on = [&](std::string_view name) {
    if (auto e = enabled.find(name); e != enabled.end()) return e->second;
    const FeatureGateSpec* spec = FindFeatureGate(name);
    return spec != nullptr && spec->default_value;
  };
  for (const Dependency& dep : Dependencies()) {
    if (!is_on(dep.feature)) continue;
    std::vector<std::string> off;
    for (std::string_view r : dep.requires_) {
      if (!is_on(r)) off.emplace_back(r);
    }
    if (!off.empty()) {
      errors.push_back(std::string(dep.feature) +
                       " is enabled, but depends on features that are disabled: [" +
                       Join(off, " ") + "]");
    }
  }
  if (!errors.empty()) return Aggregate(errors);
  fg.explicit_gates = std::move(enabled);
  return OkStatus();
}

}  // namespace internal
}  // namespace stowage::app
