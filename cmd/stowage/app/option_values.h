// The flag values of kube-scheduler's option types (cliflag's and component-base's), beside the
// built-in pflag types of flags.h; options.cc registers them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cmd/stowage/app/flags.h"
#include "cmd/stowage/app/options.h"
#include "stowage/api/quantity.h"

namespace stowage::app {

// cliflag.NamedCertKeyArray: "cert,key[:name1,name2]"; replaces, then appends.
std::unique_ptr<FlagValue> NamedCertKeyArrayFlag(std::vector<NamedCertKey>* p);
// cliflag.ColonSeparatedMultimapStringString with a default empty key (--feature-gates).
std::unique_ptr<FlagValue> ColonMultimapFlag(std::map<std::string, std::vector<std::string>>* p);
// logs' VerbosityLevelPflag.
std::unique_ptr<FlagValue> LevelFlag(uint32_t* p);
// logs' VModuleConfigurationPflag.
std::unique_ptr<FlagValue> VModuleFlag(std::vector<VModuleItem>* p);
// resource.QuantityValue.
std::unique_ptr<FlagValue> QuantityFlag(api::Quantity* p);
// verflag's versionValue: true, false, raw or a vX.Y.Z version to report.
std::unique_ptr<FlagValue> VersionFlagValue(VersionFlag* flag, std::string* reported);

}  // namespace stowage::app
