#include "configs/check.h"

namespace zs::configs {

namespace {

LoadedConfig run_stages(LoadedConfig lc, const CheckOptions& options) {
  resolve_autos(options, &lc);
  validate(options, &lc);
  add_lints(options, &lc);
  return lc;
}

}  // namespace

Result<LoadedConfig> run_check(const std::string& path, const CheckOptions& options) {
  ZS_ASSIGN_OR_RETURN(LoadedConfig lc, load_ds_config_file(path, LoadOptions{options.version}));
  return run_stages(std::move(lc), options);
}

Result<LoadedConfig> run_check_text(std::string_view text, std::string source_name,
                                    const CheckOptions& options) {
  ZS_ASSIGN_OR_RETURN(LoadedConfig lc, load_ds_config_text(text, std::move(source_name),
                                                           LoadOptions{options.version}));
  return run_stages(std::move(lc), options);
}

LoadedConfig run_check_document(json::Document doc, const CheckOptions& options) {
  return run_stages(load_ds_config_document(std::move(doc), LoadOptions{options.version}), options);
}

}  // namespace zs::configs
