// render_png() in a build without cairo.
#include "core/error.hpp"
#include "plot/report.hpp"

namespace speedqa::plot {

void require_png() {
    throw Error("this speedqa was built without cairo, so it writes no PNG: write .svg or .html, or rebuild with "
                "libcairo2-dev installed");
}

std::string render_png(const Chart&, double) {
    require_png();
    return {};
}

}  // namespace speedqa::plot
