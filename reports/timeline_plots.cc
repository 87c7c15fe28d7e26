// timeline_figure and validation_figure (reports/plots.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "reports/plot_style.h"
#include "reports/plots.h"
#include "reports/report_format.h"

namespace zs::reports {
namespace {

using plot::num;

constexpr int kLongestOps = 12;
// Ops closer than this fraction of the step are drawn as one box: at 880 px they would be less
// than half a pixel apart, and thousands of boxes would make the page slow.
constexpr double kMergeFraction = 1.0 / 2000;

struct StreamSpans {
  std::string name;
  std::vector<const TimelineSpan*> spans;  // by start, file order among equal starts
  double busy_s = 0;
};

std::vector<StreamSpans> group_by_stream(const std::vector<TimelineSpan>& timeline) {
  std::vector<StreamSpans> out;
  std::map<std::string, std::size_t> index;
  for (const TimelineSpan& s : timeline) {
    auto [it, inserted] = index.emplace(s.stream, out.size());
    if (inserted) out.push_back(StreamSpans{s.stream, {}, 0});
    out[it->second].spans.push_back(&s);
    out[it->second].busy_s += s.end_s - s.start_s;
  }
  for (StreamSpans& st : out) {
    std::stable_sort(
        st.spans.begin(), st.spans.end(),
        [](const TimelineSpan* a, const TimelineSpan* b) { return a->start_s < b->start_s; });
  }
  return out;
}

// "start_ms end_ms" boxes, neighbours closer than `gap_s` merged.
std::vector<std::string> merged_boxes(const StreamSpans& st, double t0_s, double gap_s) {
  std::vector<std::string> lines;
  double lo = 0, hi = -1;
  for (const TimelineSpan* s : st.spans) {
    if (hi >= lo && s->start_s <= hi + gap_s) {
      hi = std::max(hi, s->end_s);
      continue;
    }
    if (hi >= lo) lines.push_back(num(to_ms(lo - t0_s)) + " " + num(to_ms(hi - t0_s)));
    lo = s->start_s;
    hi = s->end_s;
  }
  if (hi >= lo) lines.push_back(num(to_ms(lo - t0_s)) + " " + num(to_ms(hi - t0_s)));
  return lines;
}

std::vector<Table> timeline_tables(const std::vector<StreamSpans>& streams,
                                   const std::vector<TimelineSpan>& timeline, double t0_s,
                                   double step_s) {
  Table per_stream;
  per_stream.caption = "Per stream: ops and the time they keep it busy";
  per_stream.header = {"stream", "ops", "busy (ms)", "busy (% of the step)"};
  for (const StreamSpans& st : streams) {
    per_stream.rows.push_back({text_cell(st.name), count_cell(static_cast<double>(st.spans.size())),
                               ms_cell(st.busy_s),
                               percent_cell(step_s > 0 ? st.busy_s / step_s : 0)});
  }
  std::vector<const TimelineSpan*> longest;
  for (const TimelineSpan& s : timeline) longest.push_back(&s);
  std::stable_sort(longest.begin(), longest.end(),
                   [](const TimelineSpan* a, const TimelineSpan* b) {
                     return a->end_s - a->start_s > b->end_s - b->start_s;
                   });
  if (longest.size() > static_cast<std::size_t>(kLongestOps)) longest.resize(kLongestOps);
  Table ops;
  ops.caption = "The " + std::to_string(longest.size()) + " longest ops";
  ops.header = {"op", "name", "stream", "start (ms)", "duration (ms)"};
  for (const TimelineSpan* s : longest) {
    ops.rows.push_back(
        {count_cell(static_cast<double>(s->op)), text_cell(s->name), text_cell(s->stream),
         number_cell(fixed(to_ms(s->start_s - t0_s), 3), to_ms(s->start_s - t0_s)),
         number_cell(fixed(to_ms(s->end_s - s->start_s), 3), to_ms(s->end_s - s->start_s))});
  }
  return {per_stream, ops};
}

// (predicted - measured) / measured as a cell; "n/a" when nothing was measured (0).
Cell error_cell(double predicted, double measured) {
  if (!(measured > 0)) return text_cell("n/a");
  return percent_cell((predicted - measured) / measured);
}

// A square log-log or linear panel of predicted (y) against measured (x) with the line y = x.
std::string agreement_panel(const std::string& block, const std::string& title,
                            const std::string& unit, double lo, double hi) {
  std::string s = plot::labels(title, "measured (" + unit + ")", "predicted (" + unit + ")");
  if (lo > 0 && hi / lo >= 20) {
    s += "set logscale xy\nset xrange [" + num(lo / 1.5) + ":" + num(hi * 1.5) + "]\n";
    s += "set yrange [" + num(lo / 1.5) + ":" + num(hi * 1.5) + "]\n";
  } else {
    s += "unset logscale\nset xrange [0:" + num(hi * 1.15) + "]\nset yrange [0:" + num(hi * 1.15) +
         "]\n";
  }
  s += "plot x with lines dt 2 lw 2 lc rgb \"#000000\" title \"prediction = measurement\", \\\n  " +
       block +
       " using 1:2 with points pt 7 ps 1.4 lc rgb \"#365c8d\" title \"validation run\", \\\n  " +
       block + " using 1:2:3 with labels offset 1,0.8 left notitle\n";
  return s;
}

}  // namespace

Figure timeline_figure(const SweepTable& t) {
  Figure f;
  f.id = "timeline";
  f.heading = "The winner's step, stream by stream";
  if (!t.best) {
    f.note = "The timeline is omitted: no variant fits, so there is no winner.";
    return f;
  }
  if (t.best_timeline.empty()) {
    f.note = "The timeline is omitted: results.json holds no timeline of the winner.";
    return f;
  }
  double t0 = 1e308, t1 = 0;
  for (const TimelineSpan& s : t.best_timeline) {
    t0 = std::min(t0, s.start_s);
    t1 = std::max(t1, s.end_s);
  }
  std::vector<StreamSpans> streams = group_by_stream(t.best_timeline);
  // The repetitions of a repeated segment (micro-steps) are not listed: the one drawn counts for
  // all of them in the busy times, and each fold is a labelled band across the streams.
  for (const TimelineFold& fold : t.best_folds) {
    t1 = std::max(t1, fold.end_s);
    for (StreamSpans& st : streams) {
      for (const TimelineSpan* sp : st.spans) {
        if (sp->start_s >= fold.start_s - fold.period_s && sp->start_s < fold.start_s) {
          st.busy_s += static_cast<double>(fold.repeat) * (sp->end_s - sp->start_s);
        }
      }
    }
  }
  const int n = static_cast<int>(streams.size());
  const SweepRow& best = *t.row(*t.best);
  f.note = "The simulated step of " + variant_description(t, best) +
           ": one row per stream, one box per op (ops less than 1/2000 of the step apart share "
           "a box). Gaps are time the stream waits.";
  std::string folds_script;
  for (const TimelineFold& fold : t.best_folds) {
    const std::string x0 = num(to_ms(fold.start_s - t0)), x1 = num(to_ms(fold.end_s - t0));
    const std::string what = std::to_string(fold.repeat) + " more repetition" +
                             (fold.repeat > 1 ? "s" : "") + " of the one before, " +
                             fixed(to_ms(fold.period_s), 1) + " ms each";
    folds_script += "set object rect from " + x0 + "," + num(-0.6) + " to " + x1 + "," +
                    num(n - 0.4) + " fc rgb \"#eeeeee\" fs solid 1.0 noborder behind\n";
    // Two lines: gnuplot's quoted strings here take no escapes (plot::quoted).
    const std::string xc = num(to_ms(0.5 * (fold.start_s + fold.end_s) - t0));
    folds_script += "set label " + plot::quoted(fold.segment) + " at " + xc + "," +
                    num(n / 2.0 - 0.35) + " center front\n";
    folds_script += "set label " +
                    plot::quoted("x" + std::to_string(fold.repeat) + " more, " +
                                 fixed(to_ms(fold.period_s), 0) + " ms each") +
                    " at " + xc + "," + num(n / 2.0 - 0.65) + " center front\n";
    f.note += " The grey band " + fixed(to_ms(fold.start_s - t0), 1) + "-" +
              fixed(to_ms(fold.end_s - t0), 1) + " ms is " + fold.segment + ": " + what +
              " (not drawn again; the busy times count them).";
  }

  std::string s = plot::preamble(plot::kWidthPx, std::max(260, 110 + 44 * n));
  s += plot::labels("Simulated step of the winner (" + variant_name(best) + ")",
                    "time from the start of the step (ms)", "stream");
  std::string tics;
  std::string plots;
  for (int i = 0; i < n; ++i) {
    const std::string block = "st" + std::to_string(i);
    const std::string y = num(n - 1 - i);
    s += plot::datablock(
        block, merged_boxes(streams[static_cast<std::size_t>(i)], t0, (t1 - t0) * kMergeFraction));
    tics += (tics.empty() ? "" : ", ") + plot::quoted(streams[static_cast<std::size_t>(i)].name) +
            " " + y;
    plots += (plots.empty() ? "plot " : ", \\\n  ") +
             plot::filled_boxes("$" + block,
                                "(($1+$2)/2):(" + y + "):1:2:(" + y + "-0.35):(" + y + "+0.35)",
                                plot::spread_fill_style(i, n));
  }
  s += "set ytics (" + tics + ")\nset yrange [-0.6:" + num(n - 0.4) + "]\n";
  s += "set xrange [0:" + num(to_ms(t1 - t0) * 1.02) + "]\n";
  s += "unset grid\nset grid xtics lt 1 lc rgb \"#dddddd\"\nunset key\n" + folds_script;
  f.script = s + plots + "\n";
  f.tables = timeline_tables(streams, t.best_timeline, t0, t1 - t0);
  return f;
}

Figure validation_figure(const std::vector<ValidationPoint>& points) {
  Figure f;
  f.id = "validation";
  f.heading = "Predicted against measured";
  if (points.empty()) {
    f.note =
        "The validation plot is omitted: there is no validation data (the outputs of "
        "`zerosim run --json` in DIR/validation/*.json).";
    return f;
  }
  // GiB, or MiB when every peak is below 1 GiB (a CPU run of a small model).
  std::int64_t largest = 0;
  for (const ValidationPoint& p : points) {
    largest = std::max({largest, p.predicted_peak_bytes, p.measured_peak_bytes.value_or(0)});
  }
  const Units u = units_for(largest, 0);
  std::vector<std::string> time_lines, memory_lines;
  double t_lo = 1e308, t_hi = 0, m_lo = 1e308, m_hi = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ValidationPoint& p = points[i];
    const std::string label = plot::quoted(std::to_string(i + 1));
    const double meas = to_ms(p.measured_step_s), pred = to_ms(p.predicted_step_s);
    // A point with nothing measured (0) has no place on the plot; its row says "n/a".
    if (meas > 0 && pred > 0) {
      time_lines.push_back(num(meas) + " " + num(pred) + " " + label);
      t_lo = std::min({t_lo, meas, pred});
      t_hi = std::max({t_hi, meas, pred});
    }
    if (p.measured_peak_bytes && *p.measured_peak_bytes > 0 && p.predicted_peak_bytes > 0) {
      const double mm = u.mem(*p.measured_peak_bytes), mp = u.mem(p.predicted_peak_bytes);
      memory_lines.push_back(num(mm) + " " + num(mp) + " " + label);
      m_lo = std::min({m_lo, mm, mp});
      m_hi = std::max({m_hi, mm, mp});
    }
  }
  f.note =
      "One point per validation file (numbered as in the table); on the dashed line the "
      "prediction equals the measurement." +
      std::string(memory_lines.empty()
                      ? " Peak memory is not drawn: no file measured GPU memory (the CPU "
                        "backend has none)."
                      : "");
  if (time_lines.empty()) {
    f.note = "The validation plot is omitted: no file measured a step time (each row says n/a).";
  }
  const bool two = !memory_lines.empty();
  std::string s = plot::preamble(plot::kWidthPx, two ? 440 : plot::kHeightPx);
  s += plot::datablock("steps", time_lines);
  if (two) s += plot::datablock("peaks", memory_lines);
  s += "set key top left box opaque\nset size ratio -1\n";
  if (two) s += "set multiplot layout 1,2\n";
  s += agreement_panel("$steps", "Step time, predicted against measured", "ms", t_lo, t_hi);
  if (two) {
    s += agreement_panel("$peaks", "Peak memory per GPU, predicted against measured", u.bytes, m_lo,
                         m_hi);
    s += "unset multiplot\n";
  }
  if (!time_lines.empty()) f.script = s;

  Table table;
  table.caption = "Validation runs; errors are (predicted - measured) / measured";
  table.header = {"#",
                  "file",
                  "backend",
                  "device",
                  "measured step (ms)",
                  "predicted step (ms)",
                  "step error (%)",
                  "measured peak (" + u.bytes + ")",
                  "predicted peak (" + u.bytes + ")",
                  "peak error (%)"};
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ValidationPoint& p = points[i];
    std::vector<Cell> row = {count_cell(static_cast<double>(i + 1)),
                             text_cell(p.file),
                             text_cell(p.backend),
                             text_cell(p.device),
                             ms_cell(p.measured_step_s),
                             ms_cell(p.predicted_step_s),
                             error_cell(p.predicted_step_s, p.measured_step_s)};
    if (p.measured_peak_bytes) {
      row.push_back(mem_cell(*p.measured_peak_bytes, u));
      row.push_back(mem_cell(p.predicted_peak_bytes, u));
      row.push_back(error_cell(static_cast<double>(p.predicted_peak_bytes),
                               static_cast<double>(*p.measured_peak_bytes)));
    } else {
      row.insert(row.end(), {text_cell("-"), mem_cell(p.predicted_peak_bytes, u), text_cell("-")});
    }
    table.rows.push_back(std::move(row));
  }
  f.tables.push_back(std::move(table));
  return f;
}

}  // namespace zs::reports
