package io.lbk8s.demo;

import java.util.ArrayList;
import java.util.List;

/** Columns aligned to their widest cell, two spaces apart, the way kubectl prints: no borders to break in a log. */
record TextTable(List<String> header, List<List<String>> rows, List<String> widest) {

    TextTable {
        header = List.copyOf(header);
        widest = List.copyOf(widest);
        for (List<String> row : rows) {
            if (row.size() != header.size()) {
                throw new IllegalArgumentException(
                        "row " + row + " has " + row.size() + " cells, the header " + header.size());
            }
        }
        rows = rows.stream().map(List::copyOf).toList();
    }

    static TextTable of(String... header) {
        return new TextTable(List.of(header), List.of(), List.of());
    }

    TextTable row(String... cells) {
        List<List<String>> more = new ArrayList<>(rows);
        more.add(List.of(cells));
        return new TextTable(header, more, widest);
    }

    /**
     * Sizes the columns as if this row were there too, without printing it: rows printed one at a time as they
     * come (like {@code kubectl get -w}) then line up with the first ones.
     */
    TextTable sizedFor(String... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("sizing row " + List.of(cells) + " has " + cells.length + " cells");
        }
        return new TextTable(header, rows, List.of(cells));
    }

    /** The line of row {@code index} (0 is the first row under the header), as {@link #lines} would print it. */
    String line(String indent, int index) {
        return lines(indent).get(index + 1);
    }

    /** One line per row, header first, each prefixed by {@code indent}; no trailing spaces. */
    List<String> lines(String indent) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widest.size(); i++) {
            widths[i] = widest.get(i).length();
        }
        for (List<String> line : allRows()) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        List<String> out = new ArrayList<>();
        for (List<String> line : allRows()) {
            StringBuilder text = new StringBuilder(indent);
            for (int i = 0; i < widths.length; i++) {
                text.append(line.get(i));
                if (i < widths.length - 1) {
                    text.append(" ".repeat(widths[i] - line.get(i).length() + 2));
                }
            }
            out.add(text.toString().stripTrailing());
        }
        return out;
    }

    private List<List<String>> allRows() {
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        return all;
    }
}
