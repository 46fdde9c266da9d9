/* speedqa C API: Netflix libvmaf's features and VMAF models, exact.
 *
 *   const char *models[] = {"version=vmaf_v0.6.1"};
 *   speedqa_config cfg = {0};
 *   cfg.width = 1920; cfg.height = 1080; cfg.pixel_format = 420; cfg.bitdepth = 10;
 *   cfg.models = models; cfg.model_count = 1; cfg.backend = "auto";
 *   speedqa_scorer *s;
 *   char err[256];
 *   if (speedqa_scorer_create(&s, &cfg, err, sizeof err)) fprintf(stderr, "%s\n", err);
 *   per frame:  speedqa_push(s, ref_planes, ref_strides, dis_planes, dis_strides);
 *               while (speedqa_next_frame(s, &index, scores) == 1) use(index, scores);
 *   at the end: speedqa_flush(s); and read the last frames the same way
 *   speedqa_scorer_destroy(s);
 */
#ifndef SPEEDQA_H
#define SPEEDQA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct speedqa_scorer speedqa_scorer;

typedef struct speedqa_config {
    int width, height;
    int pixel_format;               /* 400, 420, 422 or 444 */
    int bitdepth;                   /* 8, 10, 12 or 16 (more than 8: 2-byte little-endian samples) */
    const char *const *features;    /* libvmaf --feature strings, e.g. "cambi" or "adm=adm_csf_mode=1" */
    int feature_count;
    const char *const *models;      /* libvmaf --model strings, e.g. "version=vmaf_v1.0.16_3d0h" */
    int model_count;
    const char *backend;            /* "cpu" (NULL), "cuda" or "auto" */
    int threads;                    /* 0: the backend's default */
    unsigned cpumask;               /* libvmaf's --cpumask */
} speedqa_config;

/* Returns 0, or -1 with a one-line message in err. */
int speedqa_scorer_create(speedqa_scorer **out, const speedqa_config *config, char *err, size_t err_size);

/* Every value of a frame, named as libvmaf prints them. */
int speedqa_metric_count(const speedqa_scorer *s);
const char *speedqa_metric_name(const speedqa_scorer *s, int index);

/* The next frame pair. planes: Y, U, V (U, V ignored for 4:0:0); strides in
 * bytes. The frames whose values are final are queued for speedqa_next_frame
 * (features that compare a frame with the next one hold it back until then).
 * Returns 0, or -1 with the message available from speedqa_last_error. */
int speedqa_push(speedqa_scorer *s, const uint8_t *const ref_planes[3], const ptrdiff_t ref_strides[3],
                 const uint8_t *const dis_planes[3], const ptrdiff_t dis_strides[3]);
/* The clip has ended: queues the frames held back. Returns 0 or -1. */
int speedqa_flush(speedqa_scorer *s);
/* Takes the next queued frame: its index and speedqa_metric_count values.
 * Returns 1 when a frame was taken, 0 when none is queued. */
int speedqa_next_frame(speedqa_scorer *s, long long *index, double *scores);

const char *speedqa_last_error(const speedqa_scorer *s);
void speedqa_scorer_destroy(speedqa_scorer *s);
const char *speedqa_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SPEEDQA_H */
