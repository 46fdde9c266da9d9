/* A C program on the installed library (speedqa.h): scores the first FRAMES
 * frames of two raw 4:2:0 8-bit files with MODEL and speed_chroma and prints
 * them as `speedqa --csv --precision max` does, so that the install test can
 * compare the two outputs byte for byte. */
#include <speedqa/speedqa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_ready_frames(speedqa_scorer *s, double *scores) {
    long long index;
    int i, n = speedqa_metric_count(s);
    while (speedqa_next_frame(s, &index, scores) == 1) {
        printf("%lld,", index);
        for (i = 0; i < n; i++) printf("%.17g,", scores[i]);
        printf("\n");
    }
}

/* The library refuses a feature it does not know with one line that names
 * it, in words of its own (no command-line flags). */
static int refuses_unknown_feature(void) {
    const char *features[] = {"no_such_feature"};
    speedqa_config cfg;
    speedqa_scorer *s = NULL;
    char err[512] = "";
    memset(&cfg, 0, sizeof cfg);
    cfg.width = 576; cfg.height = 324; cfg.pixel_format = 420; cfg.bitdepth = 8;
    cfg.features = features; cfg.feature_count = 1;
    if (speedqa_scorer_create(&s, &cfg, err, sizeof err) == 0) {
        speedqa_scorer_destroy(s);
        return 0;
    }
    return strstr(err, "no_such_feature") != NULL && strstr(err, "--") == NULL;
}

int main(int argc, char **argv) {
    const char *features[] = {"speed_chroma"};
    const char *models[1];
    speedqa_config cfg;
    speedqa_scorer *s;
    char err[512];
    FILE *ref, *dis;
    unsigned char *ref_frame, *dis_frame;
    double *scores;
    size_t luma, chroma, frame_bytes;
    int w, h, frames, i, f;

    if (argc != 7) {
        fprintf(stderr, "usage: %s REF DIS WIDTH HEIGHT FRAMES MODEL\n", argv[0]);
        return 2;
    }
    if (!refuses_unknown_feature()) {
        fprintf(stderr, "an unknown feature was not refused as expected\n");
        return 1;
    }
    w = atoi(argv[3]); h = atoi(argv[4]); frames = atoi(argv[5]);
    models[0] = argv[6];
    memset(&cfg, 0, sizeof cfg);
    cfg.width = w; cfg.height = h; cfg.pixel_format = 420; cfg.bitdepth = 8;
    cfg.features = features; cfg.feature_count = 1;
    cfg.models = models; cfg.model_count = 1;
    if (speedqa_scorer_create(&s, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    luma = (size_t)w * h;
    chroma = (size_t)((w + 1) / 2) * ((h + 1) / 2);
    frame_bytes = luma + 2 * chroma;
    ref_frame = malloc(frame_bytes);
    dis_frame = malloc(frame_bytes);
    scores = malloc(sizeof(double) * speedqa_metric_count(s));
    ref = fopen(argv[1], "rb");
    dis = fopen(argv[2], "rb");
    if (!ref_frame || !dis_frame || !scores || !ref || !dis) {
        fprintf(stderr, "cannot open the input\n");
        return 1;
    }

    printf("Frame,");
    for (i = 0; i < speedqa_metric_count(s); i++) printf("%s,", speedqa_metric_name(s, i));
    printf("\n");
    for (f = 0; f < frames; f++) {
        const uint8_t *ref_planes[3] = {ref_frame, ref_frame + luma, ref_frame + luma + chroma};
        const uint8_t *dis_planes[3] = {dis_frame, dis_frame + luma, dis_frame + luma + chroma};
        const ptrdiff_t strides[3] = {w, (w + 1) / 2, (w + 1) / 2};
        if (fread(ref_frame, 1, frame_bytes, ref) != frame_bytes || fread(dis_frame, 1, frame_bytes, dis) != frame_bytes) {
            fprintf(stderr, "short input\n");
            return 1;
        }
        if (speedqa_push(s, ref_planes, strides, dis_planes, strides)) {
            fprintf(stderr, "%s\n", speedqa_last_error(s));
            return 1;
        }
        print_ready_frames(s, scores);
    }
    if (speedqa_flush(s)) {
        fprintf(stderr, "%s\n", speedqa_last_error(s));
        return 1;
    }
    print_ready_frames(s, scores);
    speedqa_scorer_destroy(s);
    fclose(ref);
    fclose(dis);
    free(ref_frame);
    free(dis_frame);
    free(scores);
    return 0;
}
