// The frame assembler: sequencers that hold frames back, libvmaf's column
// order (outputs written per frame, then those written at the end), models
// fed from the finished columns, frames handed out in order exactly once.
#include <gtest/gtest.h>

#include "api/frame_assembler.hpp"

namespace speedqa {
namespace {

// A feature whose raw value v gives outputs (v, deferred: v + next frame's v).
class LookAhead final : public Feature {
public:
    explicit LookAhead(const std::string& name)
        : Feature(OptionValues(name, {}), {{"a", name + "_now", false}, {"b", name + "_later", true}}) {}
    int raw_count() const override { return 1; }
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget&) const override { return nullptr; }
    std::unique_ptr<Sequencer> make_sequencer() const override { return std::make_unique<Seq>(); }

private:
    struct Seq final : Sequencer {
        bool have = false;
        long long index = 0;
        double v = 0;
        void push(long long i, const double* raw, const EmitFn& emit) override {
            if (have) {
                const double out[2] = {v, v + raw[0]};
                emit(index, out);
            }
            have = true;
            index = i;
            v = raw[0];
        }
        void finish(const EmitFn& emit) override {
            if (!have) return;
            const double out[2] = {v, v};
            emit(index, out);
            have = false;
        }
    };
};

class Plain final : public Feature {
public:
    Plain() : Feature(OptionValues("plain", {}), {{"p", "plain", false}}) {}
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget&) const override { return nullptr; }
};

class Sum final : public ColumnModel {
public:
    const std::string& name() const override { return name_; }
    double predict(const double* in) const override { return in[0] + 10 * in[1]; }

private:
    std::string name_ = "model";
};

TEST(FrameAssembler, OrderColumnsAndModels) {
    LookAhead la("la");
    Plain plain;
    Sum model;
    FrameAssembler a({&la, &plain}, {&model});
    EXPECT_EQ(a.columns(), (std::vector<std::string>{"la_now", "plain", "la_later", "model"}));
    model.input_columns = {a.column_of(1, 0), a.column_of(0, 1)};  // plain, la_later
    std::vector<FrameScores> done;
    const double raw0[2] = {1, 100}, raw1[2] = {2, 200}, raw2[2] = {4, 400};
    a.push(0, raw0, done);
    EXPECT_TRUE(done.empty()) << "frame 0 waits for frame 1";
    a.push(1, raw1, done);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].index, 0);
    EXPECT_EQ(done[0].values, (std::vector<double>{1, 100, 3, 100 + 30}));
    a.push(2, raw2, done);
    a.finish(done);
    ASSERT_EQ(done.size(), 3u);
    EXPECT_EQ(done[1].values, (std::vector<double>{2, 200, 6, 200 + 60}));
    EXPECT_EQ(done[2].values, (std::vector<double>{4, 400, 4, 400 + 40}));
    EXPECT_THROW(a.push(7, raw0, done), std::logic_error);
}

}  // namespace
}  // namespace speedqa
