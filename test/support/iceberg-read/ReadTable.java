// Reads an Iceberg table row by row through its REST catalog, for the integration tests
// (test/integration/profiles-iceberg-rewind.test.ts): prints {"rows": n, "distinctIds": d,
// "snapshot": "<current snapshot id>"} for the table's current snapshot, counting the distinct
// values of column `id`. Run in Java's source-file mode with the Iceberg sink plugin's jars on the
// class path: java -cp '<plugin dir>/*' ReadTable.java <catalog uri> <namespace.table>.
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

public class ReadTable {
  public static void main(String[] args) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put("uri", args[0]);
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.setConf(new org.apache.hadoop.conf.Configuration());
      catalog.initialize("test", props);
      Table table = catalog.loadTable(TableIdentifier.parse(args[1]));
      long rows = 0;
      Set<String> ids = new HashSet<>();
      if (table.currentSnapshot() != null) {
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record r : records) {
            rows++;
            ids.add(String.valueOf(r.getField("id")));
          }
        }
      }
      String snapshot = table.currentSnapshot() == null ? "" : Long.toString(table.currentSnapshot().snapshotId());
      System.out.println("{\"rows\":" + rows + ",\"distinctIds\":" + ids.size() + ",\"snapshot\":\"" + snapshot + "\"}");
    }
  }
}
