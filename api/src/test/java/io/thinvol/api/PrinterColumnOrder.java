package io.thinvol.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Puts a generated CRD's {@code additionalPrinterColumns} in the order the model declares them.
 * kubectl prints the columns in the CRD's order, but fabric8's CRD generator sorts them by JSON
 * path (fabric8io/kubernetes-client#7454 asks for an order; none exists), which put {@code AGE}
 * first. The rest of the generated text is left exactly as generated.
 */
final class PrinterColumnOrder {

  private static final Pattern LIST =
      Pattern.compile("^( *)(?:- )?additionalPrinterColumns:$", Pattern.MULTILINE);
  private static final Pattern NAME = Pattern.compile("^ *name: \"(.*)\"$");

  private PrinterColumnOrder() {}

  /** The names of {@code kind}'s columns, in the order of its annotations. */
  static List<String> declared(Class<?> kind) {
    return Arrays.stream(kind.getAnnotationsByType(AdditionalPrinterColumn.class))
        .map(AdditionalPrinterColumn::name)
        .toList();
  }

  static String apply(String crd, Class<?> kind) {
    Matcher list = LIST.matcher(crd);
    if (!list.find()) {
      return crd;
    }
    // The items sit at the key's own column, as the generator writes lists.
    String indent = " ".repeat(list.end() - list.start() - "additionalPrinterColumns:".length());
    int start = list.end() + 1;
    List<String> items = new ArrayList<>();
    int end = start;
    while (end < crd.length()) {
      int lineEnd = crd.indexOf('\n', end) + 1;
      String line = crd.substring(end, lineEnd);
      if (line.startsWith(indent + "- ")) {
        items.add(line);
      } else if (line.startsWith(indent + "  ") && !items.isEmpty()) {
        items.set(items.size() - 1, items.get(items.size() - 1) + line);
      } else {
        break;
      }
      end = lineEnd;
    }
    List<String> order = declared(kind);
    items.sort((a, b) -> Integer.compare(order.indexOf(name(a)), order.indexOf(name(b))));
    return crd.substring(0, start) + String.join("", items) + crd.substring(end);
  }

  private static String name(String item) {
    for (String line : item.split("\n")) {
      Matcher name = NAME.matcher(line);
      if (name.matches()) {
        return name.group(1);
      }
    }
    throw new IllegalArgumentException("a printer column without a name: " + item);
  }
}
