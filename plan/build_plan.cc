#include "plan/build_plan.h"

#include "configs/ds_config.h"
#include "plan/builder.h"
#include "plan/schedules.h"

namespace zs::plan {

Result<BuiltPlan> build_plan(const PlanRequest& request) {
  ZS_ASSIGN_OR_RETURN(Layout layout, make_layout(request));
  BuiltPlan out;
  out.layout = std::move(layout);
  PlanBuilder b(out.layout, request.names);
  switch (out.layout.stage) {
    case 0:
      schedule_stage0(b);
      break;
    case 1:
    case 2:
      schedule_stage12(b);
      break;
    default:
      schedule_stage3(b);
      break;
  }
  const Layout& l = out.layout;
  // An encoder-decoder's decoder runs over its own target tokens.
  const std::string decoder =
      models::is_encoder_decoder(*request.model)
          ? " (decoder " + std::to_string(request.target_len > 0 ? request.target_len : l.seq_len) +
                ")"
          : "";
  out.plan = b.finish(request.model->name + ", ZeRO stage " + std::to_string(l.stage) + ", " +
                      std::to_string(l.world) + " GPUs, micro-batch " +
                      std::to_string(l.micro_batch) + " x " + std::to_string(l.micro_steps) +
                      " micro-steps, sequence " + std::to_string(l.seq_len) + decoder + ", " +
                      std::string(configs::precision_name(l.precision)));
  const Status valid = validate(out.plan);
  ZS_CHECK_MSG(valid.is_ok(), valid.message().c_str());
  return out;
}

}  // namespace zs::plan
