/// The plots' header: the title and the legend never overlap, at any width, whatever the labels
/// (compare mode's "A: <run>" and "B: <run>" on narrow plots). Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/widgets/plot_widgets.h"
#include "ui/ui_test_support.h"

#include <imgui.h>

#include <string>
#include <vector>

using namespace redraw;

TEST_CASE("plot header: the legend beside the title while it fits, else on rows of its own") {
  const float font = 10;
  const std::vector<float> two = {40, 50};
  // Wide: one row; entries right-aligned (frame 400: the right margin at 394), in order.
  PlotHeader h = layout_plot_header(400, 60, two, font);
  CHECK(h.rows == 1);
  REQUIRE(h.entries.size() == 2);
  CHECK(h.entries[1].x + 9 + 50 == doctest::Approx(394)); // swatch + gap (0.9 font), label
  CHECK(h.entries[0].x + 9 + 40 + 7 == doctest::Approx(h.entries[1].x));
  CHECK(h.entries[0].x >= 5 + 60 + 10); // after the title and its gap
  CHECK(h.entries[0].row == 0);
  // Narrower than title + legend: both entries on a row of their own below the title.
  h = layout_plot_header(180, 60, two, font);
  CHECK(h.rows == 2);
  CHECK(h.entries[0].row == 1);
  CHECK(h.entries[1].row == 1);
  CHECK(h.entries[0].x >= 5);
  // Narrower still: one entry a row.
  h = layout_plot_header(120, 60, two, font);
  CHECK(h.rows == 3);
  CHECK(h.entries[0].row == 1);
  CHECK(h.entries[1].row == 2);
  // A label wider than a whole row is cut to the row.
  const std::vector<float> wide = {500};
  h = layout_plot_header(120, 60, wide, font);
  CHECK(h.rows == 2);
  CHECK(h.entries[0].x == doctest::Approx(5));
  CHECK(h.entries[0].label_w == doctest::Approx(114 - 5 - 9));
  // No labels: the title's row alone.
  CHECK(layout_plot_header(120, 60, {}, font).rows == 1);
}

namespace {
struct Box {
  float x0, y0, x1, y1;
};

/// The glyph quads of every text the window's draw list holds: four vertices of an axis-aligned
/// rectangle sampling the font atlas (fills and lines sample its white pixel).
std::vector<Box> glyph_boxes(const ImDrawList& dl, ImVec2 white) {
  std::vector<Box> out;
  const auto& v = dl.VtxBuffer;
  for (int i = 0; i + 3 < v.Size; ++i) {
    const ImDrawVert &a = v[i], &b = v[i + 1], &c = v[i + 2], &d = v[i + 3];
    const bool textured = a.uv.x != white.x || a.uv.y != white.y;
    const bool rect = a.pos.y == b.pos.y && b.pos.x == c.pos.x && c.pos.y == d.pos.y && a.pos.x == d.pos.x &&
                      a.pos.x < b.pos.x && a.pos.y < d.pos.y;
    if (textured && rect && c.uv.x != a.uv.x) {
      out.push_back(Box{a.pos.x, a.pos.y, c.pos.x, c.pos.y});
      i += 3;
    }
  }
  return out;
}
} // namespace

TEST_CASE("plot header: no glyph of the title and the legend overlaps another, nor leaves the frame") {
  test::HeadlessImGui gui(ImVec2(1600, 1000));
  ImGuiStyle& style = ImGui::GetStyle();
  style.AntiAliasedLines = false; // lines and fills then sample the white pixel only
  style.AntiAliasedFill = false;
  const std::vector<float> xs = {1, 2, 3}, ys = {3, 2, 1};
  const PlotSeries a{xs, ys, IM_COL32(90, 170, 255, 255), "A: 000-camera-instant-s1"};
  const PlotSeries b{xs, ys, IM_COL32(255, 160, 60, 255), "B: 001-camera-siren-lr_max=0.001-s1"};
  const std::vector<PlotSeries> series = {a, b};
  PlotOptions opts;
  opts.title = "loss (log)";
  opts.log_y = true;
  for (float width : {160.0f, 240.0f, 330.0f, 420.0f, 520.0f, 800.0f}) {
    CAPTURE(width);
    ImVec2 origin;
    std::vector<Box> boxes;
    gui.frame([&] {
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(1600, 1000));
      ImGui::Begin("plots", nullptr, ImGuiWindowFlags_NoDecoration);
      origin = ImGui::GetCursorScreenPos();
      draw_line_plot("loss", ImVec2(width, 220), series, opts);
      boxes = glyph_boxes(*ImGui::GetWindowDrawList(), ImGui::GetIO().Fonts->TexUvWhitePixel);
      ImGui::End();
    });
    REQUIRE(boxes.size() > 20); // the title and the labels at least
    int overlaps = 0, outside = 0;
    for (size_t i = 0; i < boxes.size(); ++i) {
      const Box& p = boxes[i];
      if (p.x0 < origin.x || p.x1 > origin.x + width) ++outside;
      for (size_t j = i + 1; j < boxes.size(); ++j) {
        const Box& q = boxes[j];
        const float w = std::min(p.x1, q.x1) - std::max(p.x0, q.x0);
        const float h = std::min(p.y1, q.y1) - std::max(p.y0, q.y0);
        if (w > 1 && h > 1) ++overlaps;
      }
    }
    CHECK(overlaps == 0);
    CHECK(outside == 0);
  }
}
#endif
