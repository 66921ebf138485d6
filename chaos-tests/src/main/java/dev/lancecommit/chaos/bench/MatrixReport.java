package dev.lancecommit.chaos.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Shape;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.DefaultDrawingSupplier;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The matrix's results as CSV (the record the chart is redrawn from), a markdown table and one chart per workload. */
final class MatrixReport {
  static final String CSV = "results.csv";
  static final String MARKDOWN = "results.md";
  private static final String HEADER = "workload,store,writers,tables,system,commits,commits_per_s,"
      + "commits_per_s_incl_drain,p50_ms,p99_ms,max_ms,failed,retries,group_size_mean,group_size_max,drain_s,"
      + "verified,verification";
  private static final Color[] COLORS = {
      new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
      new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)};

  /** One system's run in one cell. */
  record Row(String workload, String store, int writers, int tables, String system, long commits,
      double commitsPerSecond, double commitsPerSecondWithDrain, double p50, double p99, double max, long failed,
      long retries, double groupSizeMean, int groupSizeMax, double drainSeconds, boolean verified,
      String verification) {

    static Row of(Cell cell, RunResult r) {
      return new Row(cell.workload().cliName(), cell.store().kind().cliName(), cell.writersPerTable(), cell.tables(),
          r.name(), r.commits(), r.commitsPerSecond(), r.commitsPerSecondWithDrain(), r.percentileMillis(50),
          r.percentileMillis(99), r.percentileMillis(100), r.failedCommits(), r.retryCount(), r.groupSizeMean(),
          r.groupSizeMax(), r.drainSeconds(), r.verified(), r.verification());
    }

    String csv() {
      return String.join(",", workload, store, String.valueOf(writers), String.valueOf(tables), quote(system),
          String.valueOf(commits), num(commitsPerSecond), num(commitsPerSecondWithDrain), num(p50), num(p99),
          num(max), String.valueOf(failed), String.valueOf(retries), num(groupSizeMean),
          String.valueOf(groupSizeMax), num(drainSeconds), String.valueOf(verified), quote(verification));
    }

    static Row parse(String line) {
      List<String> f = splitCsv(line);
      return new Row(f.get(0), f.get(1), Integer.parseInt(f.get(2)), Integer.parseInt(f.get(3)), f.get(4),
          Long.parseLong(f.get(5)), parseNum(f.get(6)), parseNum(f.get(7)), parseNum(f.get(8)), parseNum(f.get(9)),
          parseNum(f.get(10)), Long.parseLong(f.get(11)), Long.parseLong(f.get(12)), parseNum(f.get(13)),
          Integer.parseInt(f.get(14)), parseNum(f.get(15)), Boolean.parseBoolean(f.get(16)), f.get(17));
    }
  }

  private MatrixReport() {}

  static void appendCsv(Path out, Row row) {
    try {
      Files.createDirectories(out);
      Path csv = out.resolve(CSV);
      if (!Files.exists(csv)) {
        Files.writeString(csv, HEADER + "\n");
      }
      Files.writeString(csv, row.csv() + "\n", java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Row> readCsv(Path csv) {
    try {
      return Files.readAllLines(csv).stream().skip(1).filter(l -> !l.isBlank()).map(Row::parse).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The markdown table and the charts of {@code rows} into {@code out}; returns the markdown. */
  static String write(Path out, List<Row> rows, String heading) {
    String markdown = markdown(rows, heading);
    try {
      Files.createDirectories(out);
      Files.writeString(out.resolve(MARKDOWN), markdown);
      for (String workload : new LinkedHashSet<>(rows.stream().map(Row::workload).toList())) {
        List<Row> mine = rows.stream().filter(r -> r.workload().equals(workload)).toList();
        if (mine.stream().map(Row::writers).distinct().count() > 1) {
          chart(out.resolve("chart-" + workload + ".png"), workload, mine);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return markdown;
  }

  static String markdown(List<Row> rows, String heading) {
    StringBuilder md = new StringBuilder(heading).append("\n\n");
    md.append("| workload | store | writers | system | commits/s | incl. drain | p50 ms | p99 ms | max ms | failed "
        + "| retries | group size (mean/max) | verified |\n");
    md.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (Row r : rows) {
      String writers = r.tables() == 1 ? String.valueOf(r.writers()) : r.tables() + " x " + r.writers();
      md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %.0f | %d | %s | %s "
              + "| %s |%n", r.workload(), r.store(), writers, r.system(), r.commitsPerSecond(),
          r.commitsPerSecondWithDrain(), r.p50(), r.p99(), r.max(), r.failed(),
          r.retries() < 0 ? "n/a" : String.valueOf(r.retries()),
          Double.isNaN(r.groupSizeMean()) ? "-" : String.format(Locale.ROOT, "%.1f/%d", r.groupSizeMean(),
              r.groupSizeMax()), r.verified() ? "ok" : "**" + r.verification() + "**"));
    }
    return md.toString();
  }

  /** Commits/s (top) and p99 latency (bottom) against writers, one line per store and system, log-log. */
  private static void chart(Path png, String workload, List<Row> rows) throws IOException {
    Map<String, XYSeries> throughput = new LinkedHashMap<>();
    Map<String, XYSeries> p99 = new LinkedHashMap<>();
    for (Row r : rows) {
      String key = r.store() + " / " + r.system();
      throughput.computeIfAbsent(key, XYSeries::new).add(r.writers(), Math.max(r.commitsPerSecond(), 0.1));
      p99.computeIfAbsent(key, XYSeries::new).add(r.writers(), Math.max(r.p99(), 0.1));
    }
    LogAxis writers = new LogAxis("writers on one table");
    writers.setBase(2);
    writers.setTickUnit(new NumberTickUnit(1));
    writers.setNumberFormatOverride(new DecimalFormat("0"));
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(writers);
    plot.add(subplot(throughput, "commits/s", true), 1);
    plot.add(subplot(p99, "p99 latency (ms)", false), 1);
    JFreeChart chart = new JFreeChart("CommitBenchmark: " + workload, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1100, 900);
  }

  /** One panel; the same color, shape and dash per series in both panels, listed in the legend once. */
  private static XYPlot subplot(Map<String, XYSeries> series, String label, boolean inLegend) {
    XYSeriesCollection data = new XYSeriesCollection();
    series.values().forEach(data::addSeries);
    LogAxis axis = new LogAxis(label);
    axis.setBase(10);
    axis.setSmallestValue(0.1);
    axis.setTickUnit(new NumberTickUnit(1));
    axis.setNumberFormatOverride(new DecimalFormat("0.#"));
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    Shape[] shapes = DefaultDrawingSupplier.createStandardSeriesShapes();
    int i = 0;
    for (String key : series.keySet()) {
      renderer.setSeriesPaint(i, COLORS[i % COLORS.length]);
      renderer.setSeriesShape(i, shapes[i % shapes.length]);
      renderer.setSeriesVisibleInLegend(i, inLegend);
      boolean lance = !key.contains("coordinator") && !key.contains("namespace");
      renderer.setSeriesStroke(i, lance
          ? new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
          : new BasicStroke(2f));
      i++;
    }
    XYPlot plot = new XYPlot(data, null, axis, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    return plot;
  }

  private static String num(double value) {
    return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.2f", value);
  }

  private static double parseNum(String value) {
    return value.isEmpty() ? Double.NaN : Double.parseDouble(value);
  }

  private static String quote(String value) {
    return "\"" + value.replace("\"", "\"\"") + "\"";
  }

  private static List<String> splitCsv(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }

  /** The systems of {@code rows} in first-seen order (for callers that summarise). */
  static Set<String> systems(List<Row> rows) {
    return new LinkedHashSet<>(rows.stream().map(Row::system).toList());
  }
}
