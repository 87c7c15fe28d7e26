// The preset figures themselves, one function per GPU and per node, each figure with its source.
// Internal to zs_hardware: other code uses presets.h.
#pragma once

#include "configs/hardware/hardware_spec.h"

namespace zs::configs::preset_data {

GpuSpec v100_sxm2_16gb();
GpuSpec v100_sxm2_32gb();
GpuSpec v100_sxm3_32gb();
GpuSpec a100_sxm4_40gb();
GpuSpec a100_sxm4_80gb();
GpuSpec h100_sxm5_80gb();
GpuSpec h200_sxm_141gb();

NodeSpec dgx_1v();
NodeSpec dgx_2();
NodeSpec dgx_a100_320gb();
NodeSpec dgx_a100_640gb();
NodeSpec dgx_h100();
NodeSpec dgx_h200();

}  // namespace zs::configs::preset_data
