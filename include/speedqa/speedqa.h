/* speedqa C API: speed_chroma and speed_temporal of Netflix libvmaf, exact.
 *
 *   const char *features[] = {"speed_chroma", "speed_temporal"};
 *   speedqa_scorer *s;
 *   char err[256];
 *   if (speedqa_scorer_create(&s, 1920, 1080, 420, 10, features, 2, "auto", 2, 0, err, sizeof err))
 *       fprintf(stderr, "%s\n", err);
 *   double scores[4];
 *   speedqa_push(s, ref_planes, ref_strides, dis_planes, dis_strides, scores);   // per frame
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

/* pixel_format: 400, 420, 422 or 444; bitdepth 8, 10, 12 or 16 (more than 8:
 * 2-byte little-endian samples). features: libvmaf --feature strings.
 * backend: "cpu", "cuda" or "auto". Returns 0, or -1 with a message in err. */
int speedqa_scorer_create(speedqa_scorer **out, int width, int height, int pixel_format, int bitdepth,
                          const char *const *features, int feature_count, const char *backend, int threads,
                          unsigned cpumask, char *err, size_t err_size);

int speedqa_metric_count(const speedqa_scorer *s);
const char *speedqa_metric_name(const speedqa_scorer *s, int index);

/* Scores the next frame pair into scores[metric_count]. planes: Y, U, V
 * (U, V ignored for 4:0:0); strides in bytes. Returns 0, or -1 with the
 * message available from speedqa_last_error. */
int speedqa_push(speedqa_scorer *s, const uint8_t *const ref_planes[3], const ptrdiff_t ref_strides[3],
                 const uint8_t *const dis_planes[3], const ptrdiff_t dis_strides[3], double *scores);

const char *speedqa_last_error(const speedqa_scorer *s);
void speedqa_scorer_destroy(speedqa_scorer *s);
const char *speedqa_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SPEEDQA_H */
