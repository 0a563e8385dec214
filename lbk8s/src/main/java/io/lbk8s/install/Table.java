package io.lbk8s.install;

import java.util.ArrayList;
import java.util.List;

/** kubectl's plain table: upper-case headers, columns padded to the widest cell and three spaces apart. */
public final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... headers) {
        this.headers = List.of(headers);
    }

    public Table row(String... cells) {
        rows.add(List.of(cells));
        return this;
    }

    @Override
    public String toString() {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        List<List<String>> all = new ArrayList<>();
        all.add(headers);
        all.addAll(rows);
        for (List<String> row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < widths.length; i++) {
                line.append(
                        i == widths.length - 1 ? row.get(i) : String.format("%-" + (widths[i] + 3) + "s", row.get(i)));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
