package dev.lancecommit.chaos.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deploy/ artifacts are checked against the code they deploy, so that they cannot rot: the example configuration
 * loads (every key known, every grant's principal given a secret), the Kubernetes manifests agree with it and with
 * the image (port, probe path, config mount, secret name), and the container's entrypoint really starts the packaged
 * coordinator with secrets taken from the environment.
 */
class DeployArtifactsTest {
  private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
  private static final Path PROPERTIES = DEPLOY.resolve("config/coordinator.properties");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir Path work;

  @Test
  void theExampleConfigurationLoadsWithTheSecretsTheExampleSecretNames() throws IOException {
    Map<String, String> secrets = exampleSecrets();
    CoordinatorConfig.Builder builder = CoordinatorConfig.builder().load(PROPERTIES);
    secretsAsOptions(secrets).forEach(builder::set);
    CoordinatorConfig config = builder.build();

    assertThat(config.get(CoordinatorConfig.WAREHOUSE)).startsWith("s3://");
    assertThat(config.get(CoordinatorConfig.PORT)).isEqualTo(9101);
    assertThat(config.get(PublicationConfig.EVENTS_TOPIC_PARTITIONS)).isEqualTo(12);
    // AuthConfig refuses grants to principals without a credential: the secret must cover every grant
    assertThat(config.authConfig().principals()).containsExactlyInAnyOrder("platform", "ingest", "analyst");
    assertThat(config.authConfig().grants().keySet()).containsExactlyInAnyOrder("platform", "ingest", "analyst");
    assertThat(config.credentialsConfig().stsSettings().roleArn()).startsWith("arn:aws:iam::");
  }

  @Test
  void everyOptionTheEntrypointPassesIsADocumentedKey() throws IOException {
    String entrypoint = Files.readString(DEPLOY.resolve("container/entrypoint.sh"));
    Matcher option = Pattern.compile("--([a-z0-9][a-z0-9.$-]*)").matcher(entrypoint);
    Set<String> names = new TreeSet<>();
    while (option.find()) {
      names.add(option.group(1).replace("$name", "ingest"));
    }
    names.remove("add-opens"); // a JVM option
    names.remove("config");
    assertThat(names).contains("s3.access-key-id", "auth.principals.ingest.token", "auth.principals.ingest.api-key");
    assertThat(names).allSatisfy(name -> assertThat(CoordinatorConfig.keys().accepts(name)).as(name).isTrue());
  }

  @Test
  void theKubernetesManifestsAgreeWithTheConfigurationAndTheImage() throws IOException {
    JsonNode kustomization = YAML.readTree(DEPLOY.resolve("kustomization.yaml").toFile());
    Map<String, JsonNode> byKind = new HashMap<>();
    for (JsonNode resource : kustomization.path("resources")) {
      Path file = DEPLOY.resolve(resource.asText());
      assertThat(file).exists();
      JsonNode manifest = YAML.readTree(file.toFile());
      byKind.put(manifest.path("kind").asText(), manifest);
    }
    assertThat(byKind).containsKeys("Deployment", "Service", "ServiceAccount");
    JsonNode generator = kustomization.path("configMapGenerator").get(0);
    String configFile = generator.path("files").get(0).asText();
    assertThat(configFile).isEqualTo("coordinator.properties=config/coordinator.properties");
    assertThat(DEPLOY.resolve(configFile.substring(configFile.indexOf('=') + 1))).isEqualTo(PROPERTIES);

    Properties properties = properties();
    JsonNode pod = byKind.get("Deployment").path("spec").path("template").path("spec");
    JsonNode container = pod.path("containers").get(0);
    JsonNode port = container.path("ports").get(0);
    assertThat(port.path("containerPort").asInt()).isEqualTo(Integer.parseInt(properties.getProperty("port")));
    assertThat(properties.getProperty("host")).isEqualTo("0.0.0.0");
    assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/readyz");
    assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/healthz");
    for (String probe : List.of("readinessProbe", "livenessProbe")) {
      assertThat(container.path(probe).path("httpGet").path("port").asText()).isEqualTo(port.path("name").asText());
    }
    // Prometheus scrapes /metrics on the REST port (the configuration keeps it there: no metrics.port)
    JsonNode annotations = byKind.get("Deployment").path("spec").path("template").path("metadata")
        .path("annotations");
    assertThat(annotations.path("prometheus.io/scrape").asText()).isEqualTo("true");
    assertThat(annotations.path("prometheus.io/path").asText()).isEqualTo("/metrics");
    assertThat(annotations.path("prometheus.io/port").asText()).isEqualTo(properties.getProperty("port"));
    assertThat(properties.getProperty("metrics.port", "")).isEmpty();
    assertThat(properties.getProperty("metrics.enabled")).isEqualTo("true");
    JsonNode service = byKind.get("Service").path("spec").path("ports").get(0);
    assertThat(service.path("targetPort").asText()).isEqualTo(port.path("name").asText());
    assertThat(pod.path("serviceAccountName").asText())
        .isEqualTo(byKind.get("ServiceAccount").path("metadata").path("name").asText());

    String configMap = generator.path("name").asText();
    String configVolume = null;
    for (JsonNode volume : pod.path("volumes")) {
      if (volume.path("configMap").path("name").asText().equals(configMap)) {
        configVolume = volume.path("name").asText();
      }
    }
    assertThat(configVolume).as("a volume of configMap %s", configMap).isNotNull();
    String mountPath = null;
    for (JsonNode mount : container.path("volumeMounts")) {
      if (mount.path("name").asText().equals(configVolume)) {
        mountPath = mount.path("mountPath").asText();
      }
    }
    assertThat(Files.readString(DEPLOY.resolve("container/entrypoint.sh")))
        .contains("${LCC_CONFIG:-" + mountPath + "/coordinator.properties}");
    assertThat(Files.readString(DEPLOY.resolve("container/Containerfile")))
        .contains("COPY deploy/config/coordinator.properties " + mountPath + "/coordinator.properties")
        .contains("EXPOSE " + properties.getProperty("port"));

    JsonNode secret = YAML.readTree(DEPLOY.resolve("kubernetes/secret.example.yaml").toFile());
    assertThat(container.path("envFrom").get(0).path("secretRef").path("name").asText())
        .isEqualTo(secret.path("metadata").path("name").asText());
  }

  @Test
  void theEntrypointStartsThePackagedCoordinatorWithSecretsFromTheEnvironment() throws Exception {
    Path home = Path.of("..", "coordinator", "target").toAbsolutePath().normalize();
    assertThat(home.resolve("coordinator.jar"))
        .as("the coordinator module is packaged before this module's tests (mvn verify from the root)").exists();
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    ProcessBuilder builder = new ProcessBuilder("sh", DEPLOY.resolve("container/entrypoint.sh").toString(),
        "--host", "127.0.0.1", "--port", Integer.toString(port), "--warehouse", work.resolve("warehouse").toString(),
        "--kafka", "none", "--credentials.mode", "none")
        .redirectErrorStream(true)
        .redirectOutput(work.resolve("coordinator.log").toFile());
    builder.environment().put("LCC_HOME", home.toString());
    builder.environment().put("LCC_CONFIG", PROPERTIES.toString());
    builder.environment().putAll(exampleSecrets());
    Process process = builder.start();
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      String base = "http://127.0.0.1:" + port;
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      int health = 0;
      while (health != 200 && process.isAlive() && System.nanoTime() < deadline) {
        try {
          health = http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
              HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (IOException notYet) {
          Thread.sleep(200);
        }
      }
      assertThat(health).as("coordinator log:%n%s", log()).isEqualTo(200);

      Map<String, String> secrets = exampleSecrets();
      assertThat(post(http, base + "/v1/namespace/sales/create", Map.of())).isEqualTo(401);
      assertThat(post(http, base + "/v1/namespace/sales/create",
          Map.of("Authorization", "Bearer " + secrets.get("LCC_TOKEN_PLATFORM")))).isEqualTo(200);
      assertThat(post(http, base + "/v1/table/sales$orders/declare",
          Map.of("x-api-key", secrets.get("LCC_API_KEY_INGEST")))).isEqualTo(200);
      assertThat(post(http, base + "/v1/table/sales$returns/declare",
          Map.of("Authorization", "Bearer " + secrets.get("LCC_TOKEN_ANALYST")))).as("analysts only read").isEqualTo(403);
    } finally {
      process.destroy();
      if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private int post(HttpClient http, String url, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private String log() throws IOException {
    Path log = work.resolve("coordinator.log");
    return Files.exists(log) ? Files.readString(log) : "(none)";
  }

  private static Properties properties() throws IOException {
    Properties properties = new Properties();
    try (var reader = Files.newBufferedReader(PROPERTIES)) {
      properties.load(reader);
    }
    return properties;
  }

  private static Map<String, String> exampleSecrets() throws IOException {
    JsonNode data = YAML.readTree(DEPLOY.resolve("kubernetes/secret.example.yaml").toFile()).path("stringData");
    Map<String, String> secrets = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = data.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      secrets.put(entry.getKey(), entry.getValue().asText());
    }
    return secrets;
  }

  /** What the entrypoint makes of the secrets: LCC_TOKEN_X / LCC_API_KEY_X become auth.principals.x.*. */
  private static Map<String, String> secretsAsOptions(Map<String, String> secrets) {
    Map<String, String> options = new HashMap<>();
    Set<String> unknown = new TreeSet<>();
    secrets.forEach((name, value) -> {
      if (name.startsWith("LCC_TOKEN_")) {
        options.put("auth.principals." + principal(name, "LCC_TOKEN_") + ".token", value);
      } else if (name.startsWith("LCC_API_KEY_")) {
        options.put("auth.principals." + principal(name, "LCC_API_KEY_") + ".api-key", value);
      } else {
        unknown.add(name);
      }
    });
    assertThat(unknown).as("secret keys the entrypoint does not read").isEmpty();
    return options;
  }

  private static String principal(String variable, String prefix) {
    return variable.substring(prefix.length()).toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
