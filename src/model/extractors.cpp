#include "model/extractors.hpp"

namespace speedqa::model {
namespace {

struct Provider {
    const char* extractor;
    const char* const* features;  // nullptr-terminated
};

// provided_features of libvmaf master's extractors (integer_adm.c,
// integer_vif.c, integer_motion.c, cambi.c, speed.c), debug outputs included.
constexpr const char* kAdm[] = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score", "VMAF_integer_feature_adm3_score",
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
    "integer_adm", "integer_adm_num", "integer_adm_den",
    "integer_adm_num_scale0", "integer_adm_den_scale0", "integer_adm_num_scale1", "integer_adm_den_scale1",
    "integer_adm_num_scale2", "integer_adm_den_scale2", "integer_adm_num_scale3", "integer_adm_den_scale3",
    nullptr};
constexpr const char* kVif[] = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "integer_vif", "integer_vif_num", "integer_vif_den",
    "integer_vif_num_scale0", "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2", "integer_vif_num_scale3", "integer_vif_den_scale3",
    nullptr};
constexpr const char* kMotion[] = {
    "VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_score",
    "VMAF_integer_feature_motion2_score", "VMAF_integer_feature_motion3_score", nullptr};
constexpr const char* kCambi[] = {"Cambi_feature_cambi_score", nullptr};
constexpr const char* kSpeedChroma[] = {
    "Speed_chroma_feature_speed_chroma_u_score", "Speed_chroma_feature_speed_chroma_v_score",
    "Speed_chroma_feature_speed_chroma_uv_score", nullptr};
constexpr const char* kSpeedTemporal[] = {"Speed_temporal_feature_speed_temporal_score", nullptr};

constexpr Provider kProviders[] = {
    {"adm", kAdm}, {"vif", kVif}, {"motion", kMotion}, {"cambi", kCambi},
    {"speed_chroma", kSpeedChroma}, {"speed_temporal", kSpeedTemporal},
};

// float_adm.c, float_vif.c, float_motion.c
constexpr const char* kFloatAdm[] = {
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
    "VMAF_feature_adm_scale3_score", "adm_num", "adm_den", "adm_scale0",
    "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
    "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3",
    nullptr};
constexpr const char* kFloatVif[] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    "vif", "vif_num", "vif_den", "vif_num_scale0", "vif_den_scale0", "vif_num_scale1", "vif_den_scale1",
    "vif_num_scale2", "vif_den_scale2", "vif_num_scale3", "vif_den_scale3",
    nullptr};
constexpr const char* kFloatMotion[] = {
    "VMAF_feature_motion_score", "VMAF_feature_motion2_score", "VMAF_feature_motion3_score", nullptr};

constexpr Provider kFloatProviders[] = {
    {"float_adm", kFloatAdm}, {"float_vif", kFloatVif}, {"float_motion", kFloatMotion},
};

template <size_t N>
const char* find(const Provider (&table)[N], std::string_view provided) {
    for (const Provider& p : table)
        for (const char* const* f = p.features; *f; f++)
            if (provided == *f) return p.extractor;
    return nullptr;
}

}  // namespace

const char* extractor_of(std::string_view provided) { return find(kProviders, provided); }

const char* float_extractor_of(std::string_view provided) { return find(kFloatProviders, provided); }

}  // namespace speedqa::model
