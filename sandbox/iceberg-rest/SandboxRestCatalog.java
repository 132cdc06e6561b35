// The sandbox's Iceberg REST catalog (`offsetctl sandbox up --plugin iceberg-sink`).
//
// Production Iceberg tables live behind a REST catalog (Polaris, Nessie, Glue, Unity); none is
// installable here as a server, and Maven Central has no packaged one. iceberg-core ships the
// server side of every REST catalog operation (org.apache.iceberg.rest.CatalogHandlers, over any
// Catalog) and the protocol's JSON serializers (RESTSerializers), so this file is only the
// router: it maps the routes of the REST catalog OpenAPI description (apache/iceberg,
// open-api/rest-catalog-open-api.yaml) to those handlers, over a JdbcCatalog kept in a SQLite file
// and a local warehouse folder, on the JDK's own HTTP server. offsetctl compiles it with javac at
// `up` against the Iceberg sink's jars (the same jars the workers load).
//
// Usage: java -cp '<iceberg-sink jars>/*:<classes>' SandboxRestCatalog <port> <catalog.db> <warehouse dir>
//
// Requests are served one at a time (the HTTP server's dispatcher thread): SQLite takes one writer
// anyway, and a sandbox needs no more. Multi-table transactions (POST /v1/transactions/commit),
// views and server-side scan planning are not served; /v1/config says which routes are.
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;

public final class SandboxRestCatalog {
  /** The namespace separator in paths: the unit separator, %1F (the spec's default). */
  private static final String SEPARATOR = "%1F";

  /** The routes served, as /v1/config advertises them (a client calls only these). */
  private static final List<Endpoint> ENDPOINTS = Arrays.asList(
      Endpoint.V1_LIST_NAMESPACES, Endpoint.V1_LOAD_NAMESPACE, Endpoint.V1_NAMESPACE_EXISTS,
      Endpoint.V1_CREATE_NAMESPACE, Endpoint.V1_UPDATE_NAMESPACE, Endpoint.V1_DELETE_NAMESPACE,
      Endpoint.V1_LIST_TABLES, Endpoint.V1_LOAD_TABLE, Endpoint.V1_TABLE_EXISTS, Endpoint.V1_CREATE_TABLE,
      Endpoint.V1_UPDATE_TABLE, Endpoint.V1_DELETE_TABLE, Endpoint.V1_RENAME_TABLE, Endpoint.V1_REGISTER_TABLE,
      Endpoint.V1_REPORT_METRICS);

  private final JdbcCatalog catalog;
  private final ObjectMapper mapper;

  private SandboxRestCatalog(JdbcCatalog catalog) {
    this.catalog = catalog;
    this.mapper = restMapper();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: SandboxRestCatalog <port> <catalog.db> <warehouse dir>");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    Path db = Paths.get(args[1]).toAbsolutePath();
    Path warehouse = Paths.get(args[2]).toAbsolutePath();
    Files.createDirectories(db.getParent());
    Files.createDirectories(warehouse);
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + db);
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toUri().toString());
    props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.hadoop.HadoopFileIO");
    // One connection: SQLite serialises writers, and requests are served one at a time anyway.
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    // V1 schema: the catalog table also records views (created on first use of an empty file).
    props.put("jdbc.schema-version", "V1");
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(new org.apache.hadoop.conf.Configuration());
    catalog.initialize("sandbox", props);

    SandboxRestCatalog server = new SandboxRestCatalog(catalog);
    HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    http.createContext("/", server::handle);
    http.start();
    System.out.println("Iceberg REST catalog listening on http://127.0.0.1:" + port + " (catalog " + db + ", warehouse " + warehouse + ")");
  }

  /** The mapper iceberg-core's own RESTObjectMapper builds (that class is not public). */
  private static ObjectMapper restMapper() {
    JsonFactory factory = new JsonFactoryBuilder()
        .configure(JsonFactory.Feature.INTERN_FIELD_NAMES, false)
        .configure(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW, false)
        .build();
    ObjectMapper mapper = new ObjectMapper(factory);
    mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(mapper);
    return mapper;
  }

  private void handle(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    byte[] body = readAll(exchange.getRequestBody());
    try {
      Object response = route(method, segments(path), query, body);
      if (response == null) send(exchange, 204, null);
      else send(exchange, 200, mapper.writeValueAsBytes(response));
    } catch (RouteNotFound e) {
      sendError(exchange, 404, "NoSuchRouteException", e.getMessage());
    } catch (NoSuchNamespaceException e) {
      sendError(exchange, 404, e.getClass().getSimpleName(), e.getMessage());
    } catch (NoSuchTableException | NotFoundException e) {
      sendError(exchange, 404, e.getClass().getSimpleName(), e.getMessage());
    } catch (AlreadyExistsException | CommitFailedException | NamespaceNotEmptyException e) {
      sendError(exchange, 409, e.getClass().getSimpleName(), e.getMessage());
    } catch (ValidationException | BadRequestException | IllegalArgumentException | com.fasterxml.jackson.core.JacksonException e) {
      sendError(exchange, 400, e.getClass().getSimpleName(), e.getMessage());
    } catch (CommitStateUnknownException e) {
      sendError(exchange, 500, e.getClass().getSimpleName(), e.getMessage());
    } catch (RuntimeException e) {
      e.printStackTrace();
      sendError(exchange, 500, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
    } finally {
      exchange.close();
    }
  }

  private Object route(String method, List<String> p, Map<String, String> query, byte[] body) throws IOException {
    // The sandbox's own liveness probe (offsetctl sandbox status), not part of the REST protocol.
    if (p.size() == 1 && p.get(0).equals("health") && method.equals("GET")) return new HashMap<String, String>();
    if (p.isEmpty() || !p.get(0).equals("v1")) throw new RouteNotFound(method, p);
    List<String> r = p.subList(1, p.size());
    int n = r.size();
    if (n == 1 && r.get(0).equals("config") && method.equals("GET")) {
      return ConfigResponse.builder().withEndpoints(ENDPOINTS).build();
    }
    if (n == 2 && r.get(0).equals("tables") && r.get(1).equals("rename") && method.equals("POST")) {
      CatalogHandlers.renameTable(catalog, read(body, RenameTableRequest.class));
      return null;
    }
    if (n >= 1 && r.get(0).equals("namespaces")) {
      if (n == 1) {
        if (method.equals("GET")) {
          Namespace parent = query.containsKey("parent") ? Namespace.of(query.get("parent").split("\u001f", -1)) : Namespace.empty();
          return query.containsKey("pageSize")
              ? CatalogHandlers.listNamespaces(catalog, parent, query.get("pageToken"), query.get("pageSize"))
              : CatalogHandlers.listNamespaces(catalog, parent);
        }
        if (method.equals("POST")) return CatalogHandlers.createNamespace(catalog, read(body, CreateNamespaceRequest.class));
      }
      Namespace ns = namespace(r.get(1));
      if (n == 2) {
        switch (method) {
          case "GET": return CatalogHandlers.loadNamespace(catalog, ns);
          case "HEAD": CatalogHandlers.namespaceExists(catalog, ns); return null;
          case "DELETE": CatalogHandlers.dropNamespace(catalog, ns); return null;
          default: break;
        }
      }
      if (n == 3 && r.get(2).equals("properties") && method.equals("POST")) {
        return CatalogHandlers.updateNamespaceProperties(catalog, ns, read(body, UpdateNamespacePropertiesRequest.class));
      }
      if (n == 3 && r.get(2).equals("register") && method.equals("POST")) {
        return CatalogHandlers.registerTable(catalog, ns, read(body, RegisterTableRequest.class));
      }
      if (n == 3 && r.get(2).equals("tables")) {
        if (method.equals("GET")) {
          return query.containsKey("pageSize")
              ? CatalogHandlers.listTables(catalog, ns, query.get("pageToken"), query.get("pageSize"))
              : CatalogHandlers.listTables(catalog, ns);
        }
        if (method.equals("POST")) {
          CreateTableRequest request = read(body, CreateTableRequest.class);
          return request.stageCreate() ? CatalogHandlers.stageTableCreate(catalog, ns, request) : CatalogHandlers.createTable(catalog, ns, request);
        }
      }
      if (n >= 4 && r.get(2).equals("tables")) {
        TableIdentifier table = TableIdentifier.of(ns, decode(r.get(3)));
        if (n == 4) {
          switch (method) {
            case "GET":
              RESTCatalogProperties.SnapshotMode mode = "refs".equalsIgnoreCase(query.get("snapshots"))
                  ? RESTCatalogProperties.SnapshotMode.REFS : RESTCatalogProperties.SnapshotMode.ALL;
              return CatalogHandlers.loadTable(catalog, table, mode);
            case "HEAD": CatalogHandlers.tableExists(catalog, table); return null;
            case "POST": return CatalogHandlers.updateTable(catalog, table, read(body, UpdateTableRequest.class));
            case "DELETE":
              if ("true".equalsIgnoreCase(query.get("purgeRequested"))) CatalogHandlers.purgeTable(catalog, table);
              else CatalogHandlers.dropTable(catalog, table);
              return null;
            default: break;
          }
        }
        // Metrics reports are accepted and dropped: the sandbox keeps no metrics.
        if (n == 5 && r.get(4).equals("metrics") && method.equals("POST")) return null;
      }
    }
    throw new RouteNotFound(method, p);
  }

  private <T> T read(byte[] body, Class<T> type) throws IOException {
    return mapper.readValue(body, type);
  }

  private static Namespace namespace(String raw) {
    String[] parts = raw.split("(?i)" + SEPARATOR, -1);
    String[] levels = new String[parts.length];
    for (int i = 0; i < parts.length; i++) levels[i] = decode(parts[i]);
    return Namespace.of(levels);
  }

  /** Percent-decoding of a path segment ('+' is a plus sign there, not a space). */
  private static String decode(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static List<String> segments(String rawPath) {
    List<String> out = new ArrayList<>();
    for (String s : rawPath.split("/")) if (!s.isEmpty()) out.add(s);
    return out;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) return out;
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.put(key, value);
    }
    return out;
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  private void sendError(HttpExchange exchange, int code, String type, String message) throws IOException {
    ErrorResponse error = ErrorResponse.builder().responseCode(code).withType(type).withMessage(message).build();
    send(exchange, code, mapper.writeValueAsBytes(error));
  }

  private static void send(HttpExchange exchange, int code, byte[] body) throws IOException {
    boolean head = exchange.getRequestMethod().equals("HEAD");
    if (body == null || head) {
      exchange.sendResponseHeaders(code == 200 && head ? 204 : code, -1);
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static final class RouteNotFound extends RuntimeException {
    RouteNotFound(String method, List<String> path) {
      super("no route for " + method + " /" + String.join("/", path));
    }
  }
}
