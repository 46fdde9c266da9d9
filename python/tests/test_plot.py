"""`speedqa plot`: the pictures of score files, checked through a real XML
parser (the SVG), Python's HTML parser (the page) and a PNG decoder."""
import html.parser
import json
import os
import re
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

from conftest import cli_path, run_cli

SVG = "{http://www.w3.org/2000/svg}"


def plot(*args, check=True):
    p = subprocess.run([cli_path(), "plot", *map(str, args)], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def ladder(clips, tmp_path_factory):
    """Score files of v1 as an encoding ladder would give them: the x264
    encode, and the reference against itself (a perfect rung); JSON, XML, CSV."""
    out = tmp_path_factory.mktemp("scores")
    c = clips["v1"]
    files = {}
    for rung, dis in (("crf35", c.dis), ("lossless", c.ref)):
        args = ["-r", str(c.ref), "-d", str(dis), *c.cli_geometry(), "--feature", "speed_chroma", "-q"]
        for fmt in ("json", "xml", "csv"):
            path = out / f"{rung}.{fmt}"
            subprocess.run([cli_path(), *args, f"--{fmt}", "-o", str(path)], check=True)
            files[rung, fmt] = path
    return files


def groups(root, cls):
    return [g for g in root.iter(SVG + "g") if cls in g.get("class", "").split()]


def path_points(d):
    """The points of an SVG path written as M x,y L x,y ..."""
    return [(float(x), float(y)) for x, y in re.findall(r"[ML](-?[\d.]+),(-?[\d.]+)", d)]


def test_svg_has_a_panel_per_metric_and_a_curve_per_file(ladder, tmp_path):
    out = tmp_path / "ladder.svg"
    plot(ladder["crf35", "json"], ladder["lossless", "json"], "-o", out)
    root = ET.parse(out).getroot()  # well-formed XML, or this raises
    assert root.tag == SVG + "svg"
    scores = [json.loads(ladder[r, "json"].read_text()) for r in ("crf35", "lossless")]
    metrics = list(scores[0]["pooled_metrics"])
    panels = groups(root, "panel")
    assert sorted(p.get("data-metric") for p in panels) == sorted(metrics)
    assert panels[0].get("data-metric") == "vmaf", "the model's score comes first"
    for panel in panels:
        metric = panel.get("data-metric")
        curves = groups(panel, "curve")
        assert [c.get("data-file") for c in curves] == ["0", "1"], metric
        assert len(groups(panel, "y")) == 1 and len(groups(panel, "x")) == 1
        y_ticks = [t.text for t in groups(panel, "y")[0].iter(SVG + "text")]
        assert len(y_ticks) >= 3, (metric, y_ticks)
        # the value axis as drawn: grid lines at the tick values
        axis = groups(panel, "y")[0]
        ticks = [float(t.text) for t in axis.iter(SVG + "text")]
        ys = [float(line.get("y1")) for line in axis.iter(SVG + "line")]
        to_y = lambda v: ys[0] + (v - ticks[0]) * (ys[-1] - ys[0]) / (ticks[-1] - ticks[0])
        assert ys[-1] < ys[0] and ticks[-1] > ticks[0], "values go up"
        for curve, s in zip(curves, scores):
            pts = path_points(curve.find(SVG + "path").get("d"))
            values = [f["metrics"][metric] for f in s["frames"]]
            assert len(pts) == len(values) == 8
            assert [p[0] for p in pts] == sorted(p[0] for p in pts)
            for p, v in zip(pts, values):
                assert abs(p[1] - to_y(v)) < 0.15, (metric, v, p)
    legend = groups(root, "legend-entry")
    assert [" ".join(t.text for t in e.iter(SVG + "text")) for e in legend] == [
        "crf35.json (8 frames)", "lossless.json (8 frames)"]


def test_the_worst_frames_are_marked(ladder, tmp_path):
    out = tmp_path / "one.svg"
    plot(ladder["crf35", "json"], "-o", out, "--worst", "2")
    root = ET.parse(out).getroot()
    frames = json.loads(ladder["crf35", "json"].read_text())["frames"]
    by_metric = {p.get("data-metric"): p for p in groups(root, "panel")}

    def marked(metric):
        return [int(g.get("data-frame")) for g in groups(by_metric[metric], "worst")]

    vmaf = [f["metrics"]["vmaf"] for f in frames]
    assert marked("vmaf") == sorted(range(8), key=lambda i: (vmaf[i], i))[:2]  # lower is worse
    uv = [f["metrics"]["speed_chroma_uv"] for f in frames]
    assert marked("speed_chroma_uv") == sorted(range(8), key=lambda i: (-uv[i], i))[:2]  # higher is worse
    assert marked("integer_motion2") == []  # motion is the content's, not a quality
    tooltip = groups(by_metric["vmaf"], "worst")[0].find(SVG + "title").text
    assert tooltip.startswith(f"one.json: frame {marked('vmaf')[0]}, vmaf ") or "(the worst)" in tooltip


def test_xml_and_csv_score_files_draw_the_same_curves(ladder, tmp_path):
    curves = {}
    for fmt in ("json", "xml", "csv"):
        out = tmp_path / f"{fmt}.svg"
        plot(ladder["crf35", fmt], "-o", out)
        root = ET.parse(out).getroot()
        curves[fmt] = {p.get("data-metric"): groups(p, "curve")[0].find(SVG + "path").get("d")
                       for p in groups(root, "panel")}
    assert len(curves["json"]) > 10
    assert curves["xml"] == curves["json"]
    assert curves["csv"] == curves["json"]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.cells, self.external = [], [], []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.external += [v for k, v in attrs if k in ("src", "href") and v]
        if tag == "td":
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "td":
            self.cells.append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def test_html_is_one_file_with_the_svg_and_the_pooled_values(ladder, tmp_path):
    out = tmp_path / "report.html"
    plot(ladder["crf35", "json"], ladder["lossless", "json"], "-o", out, "--title", "ladder <v1>")
    text = out.read_text()
    page = Page()
    page.feed(text)
    assert page.tags.count("svg") == 1 and page.external == []
    assert "<title>ladder &lt;v1&gt;</title>" in text
    pooled = json.loads(ladder["crf35", "json"].read_text())["pooled_metrics"]
    for metric in ("vmaf", "speed_chroma_uv", "integer_adm2"):
        p = pooled[metric]
        row = [metric, "crf35.json"] + [f"{p[k]:.6f}" for k in ("mean", "harmonic_mean", "min", "max")]
        assert any(page.cells[i:i + 6] == row for i in range(len(page.cells))), metric


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    bpp = 3 if color == 2 else 4
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (w * bpp + 1)], bytearray(raw[y * (w * bpp + 1) + 1:(y + 1) * (w * bpp + 1)])
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, len(line), bpp)])
        prev = line
    return w, h, rows


def test_png_draws_the_svgs_chart(ladder, tmp_path):
    svg, png = tmp_path / "a.svg", tmp_path / "a.png"
    plot(ladder["crf35", "json"], ladder["lossless", "json"], "-o", svg)
    p = plot(ladder["crf35", "json"], ladder["lossless", "json"], "-o", png, "--scale", "2", check=False)
    if p.returncode != 0:
        pytest.fail(f"speedqa plot -o a.png exited {p.returncode} (a build without cairo writes no PNG: "
                    f"install libcairo2-dev and rebuild): {p.stderr}")
    root = ET.parse(svg).getroot()
    w, h, rows = png_pixels(png.read_bytes())
    assert (w, h) == (2 * int(float(root.get("width"))), 2 * int(float(root.get("height"))))
    counts = {}
    for row in rows:
        for px in row:
            counts[px] = counts.get(px, 0) + 1
    assert counts.get((0xff, 0xff, 0xff), 0) > w * h // 2  # a white page
    assert counts.get((0x00, 0x72, 0xb2), 0) > 1000  # the first file's curves, in its colour
    assert counts.get((0xd5, 0x5e, 0x00), 0) > 1000  # the second's
    assert sum(n for px, n in counts.items() if max(px) < 0x50) > 1000  # dark text


def test_cairo_is_loaded_only_for_png(ladder, tmp_path):
    """cairo is opened when a PNG is asked for, not at start: scoring, SVG
    and HTML never load it (the loader's LD_DEBUG=files lines name each
    library it maps)."""
    env = {**os.environ, "LD_DEBUG": "files"}
    src = ladder["crf35", "json"]
    runs = {
        "score": [cli_path(), "--version"],
        "svg": [cli_path(), "plot", str(src), "-o", str(tmp_path / "a.svg")],
        "html": [cli_path(), "plot", str(src), "-o", str(tmp_path / "a.html")],
        "png": [cli_path(), "plot", str(src), "-o", str(tmp_path / "a.png")],
    }
    loaded = {}
    for name, argv in runs.items():
        p = subprocess.run(argv, capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr[-2000:]
        assert "file=libc.so" in p.stderr, "LD_DEBUG printed nothing"
        loaded[name] = "file=libcairo.so.2" in p.stderr
    assert loaded == {"score": False, "svg": False, "html": False, "png": True}


def test_missing_cairo_is_named_and_nothing_is_written(ladder, tmp_path):
    """Where libcairo.so.2 cannot be loaded (here: a damaged copy found first
    through LD_LIBRARY_PATH), a PNG is refused in one line naming it; SVG
    still works."""
    libs = tmp_path / "broken_libs"
    libs.mkdir()
    (libs / "libcairo.so.2").write_text("not a library")
    env = {**os.environ, "LD_LIBRARY_PATH": str(libs)}
    src, png = ladder["crf35", "json"], tmp_path / "a.png"
    p = subprocess.run([cli_path(), "plot", str(src), "-o", str(png)], capture_output=True, text=True, env=env)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1, p.stderr
    assert "PNG pictures need cairo, and it cannot load libcairo.so.2" in p.stderr, p.stderr
    assert not png.exists()
    svg = tmp_path / "a.svg"
    p = subprocess.run([cli_path(), "plot", str(src), "-o", str(svg)], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and svg.exists(), p.stderr


def test_many_frames_are_drawn_with_bounded_points_and_keep_the_extremes(tmp_path):
    n = 20000
    values = [90 + 5 * ((i * 7919) % 101) / 100 for i in range(n)]
    values[12345] = 20.0  # one terrible frame
    doc = {"frames": [{"frameNum": i, "metrics": {"vmaf": v}} for i, v in enumerate(values)]}
    src, out = tmp_path / "long.json", tmp_path / "long.svg"
    src.write_text(json.dumps(doc))
    plot(src, "-o", out, "--worst", "1")
    root = ET.parse(out).getroot()
    panel = groups(root, "panel")[0]
    pts = path_points(groups(panel, "curve")[0].find(SVG + "path").get("d"))
    assert len(pts) < 4 * 1100
    lowest = max(p[1] for p in pts)
    worst = groups(panel, "worst")[0]
    assert worst.get("data-frame") == "12345"
    assert abs(float(worst.find(SVG + "circle").get("cy")) - lowest) < 0.15


def test_labels_with_markup_stay_text(ladder, tmp_path):
    out = tmp_path / "l.svg"
    label = 'a<b & "c" \u00e9'
    plot(ladder["crf35", "json"], "-o", out, "--label", label)
    root = ET.parse(out).getroot()
    assert groups(root, "legend-entry")[0].find(SVG + "text").text == label


@pytest.mark.parametrize("args, message", [
    (["missing.json", "-o", "x.svg"], "missing.json: cannot open: No such file or directory"),
    (["bad.json", "-o", "x.svg"], "bad.json: not valid JSON: line 1, column"),
    (["notscores.txt", "-o", "x.svg"], "notscores.txt: not a score file"),
    (["good.json", "-o", "x.jpg"], "x.jpg: the output's name must end in .svg, .png or .html"),
    (["good.json", "-o", "x.svg", "--metric", "psnr"], 'no score file has the metric "psnr" (they have vmaf)'),
    (["good.json", "-o", "x.svg", "--label", "a", "--label", "b"], "2 labels for 1 score files"),
    (["unordered.json", "-o", "x.svg"], "unordered.json: frame 0 follows frame 1"),
])
def test_bad_input_one_line_and_no_output(args, message, tmp_path):
    (tmp_path / "bad.json").write_text('{"frames": [')
    (tmp_path / "notscores.txt").write_text("hello")
    (tmp_path / "good.json").write_text('{"frames": [{"frameNum": 0, "metrics": {"vmaf": 90}}]}')
    (tmp_path / "unordered.json").write_text(
        '{"frames": [{"frameNum": 1, "metrics": {"vmaf": 90}}, {"frameNum": 0, "metrics": {"vmaf": 91}}]}')
    p = subprocess.run([cli_path(), "plot", *args], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
    assert not (tmp_path / "x.svg").exists() and not (tmp_path / "x.jpg").exists()
