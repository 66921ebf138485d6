package dev.lancecommit.chaos.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.cluster.ClusterConfig;
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
import java.util.ArrayList;
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
    assertThat(names).contains("s3.access-key-id", "auth.principals.ingest.token", "auth.principals.ingest.api-key",
        "cluster.enabled", "cluster.advertised-url", "cluster.secret", "cluster.group", "cluster.instance-id");
    assertThat(names).allSatisfy(name -> assertThat(CoordinatorConfig.keys().accepts(name)).as(name).isTrue());
  }

  @Test
  void theKubernetesManifestsAgreeWithTheConfigurationAndTheImage() throws IOException {
    JsonNode kustomization = YAML.readTree(DEPLOY.resolve("kustomization.yaml").toFile());
    Map<String, JsonNode> byKind = new HashMap<>();
    Map<String, JsonNode> services = new HashMap<>();
    for (JsonNode resource : kustomization.path("resources")) {
      Path file = DEPLOY.resolve(resource.asText());
      assertThat(file).exists();
      JsonNode manifest = YAML.readTree(file.toFile());
      if (manifest.path("kind").asText().equals("Service")) {
        services.put(manifest.path("metadata").path("name").asText(), manifest);
      } else {
        byKind.put(manifest.path("kind").asText(), manifest);
      }
    }
    assertThat(byKind).containsKeys("Deployment", "ServiceAccount", "PodDisruptionBudget");
    assertThat(services).containsKeys("lance-commit-coordinator", "lance-commit-coordinator-peers");
    byKind.put("Service", services.get("lance-commit-coordinator"));
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
    assertThat(secret.path("stringData").path("LCC_CLUSTER_SECRET").asText()).hasSizeGreaterThanOrEqualTo(16);

    // Cluster mode: three instances rolled one at a time, at most one taken away voluntarily, each advertising its
    // pod IP, peers listed by a headless Service
    JsonNode deployment = byKind.get("Deployment").path("spec");
    assertThat(deployment.path("replicas").asInt()).isEqualTo(3);
    assertThat(deployment.path("strategy").path("type").asText()).isEqualTo("RollingUpdate");
    assertThat(deployment.path("strategy").path("rollingUpdate").path("maxUnavailable").asInt()).isZero();
    JsonNode podLabels = byKind.get("Deployment").path("spec").path("template").path("metadata").path("labels");
    JsonNode pdb = byKind.get("PodDisruptionBudget").path("spec");
    assertThat(pdb.path("maxUnavailable").asInt()).isEqualTo(1);
    assertThat(podLabels).isEqualTo(pdb.path("selector").path("matchLabels"));
    JsonNode peers = services.get("lance-commit-coordinator-peers").path("spec");
    assertThat(peers.path("clusterIP").asText()).isEqualTo("None");
    assertThat(peers.path("selector")).isEqualTo(podLabels);
    assertThat(peers.path("ports").get(0).path("targetPort").asText()).isEqualTo(port.path("name").asText());
    Map<String, JsonNode> env = new HashMap<>();
    container.path("env").forEach(variable -> env.put(variable.path("name").asText(), variable));
    assertThat(env.get("LCC_CLUSTER_ENABLED").path("value").asText()).isEqualTo("true");
    assertThat(env.get("LCC_POD_IP").path("valueFrom").path("fieldRef").path("fieldPath").asText())
        .isEqualTo("status.podIP");
    assertThat(env.get("LCC_CLUSTER_INSTANCE_ID").path("valueFrom").path("fieldRef").path("fieldPath").asText())
        .isEqualTo("metadata.name");
  }

  /**
   * The entrypoint turns the pod's environment into the cluster keys (the advertised URL from the pod IP and the
   * configured port), and what it passes is a valid cluster configuration. A stand-in {@code java} records the
   * arguments instead of starting the coordinator (cluster mode needs Kafka; the real start is tested above).
   */
  @Test
  void theEntrypointTakesTheClusterKeysFromTheEnvironment() throws Exception {
    Path bin = Files.createDirectories(work.resolve("bin"));
    Path recorded = work.resolve("args");
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/bin/sh\nfor arg in \"$@\"; do printf '%s\\n' \"$arg\"; done > \"$ARGS_FILE\"\n");
    assertThat(java.toFile().setExecutable(true)).isTrue();

    List<String> args = runEntrypoint(bin, recorded, Map.of("LCC_CLUSTER_ENABLED", "true", "LCC_POD_IP", "10.42.0.7",
        "LCC_CLUSTER_INSTANCE_ID", "lance-commit-coordinator-7d9f-x2x4q"));
    Map<String, String> options = options(args);
    assertThat(options).containsEntry("cluster.enabled", "true")
        .containsEntry("cluster.advertised-url", "http://10.42.0.7:" + properties().getProperty("port"))
        .containsEntry("cluster.instance-id", "lance-commit-coordinator-7d9f-x2x4q")
        .containsEntry("cluster.secret", exampleSecrets().get("LCC_CLUSTER_SECRET"));
    CoordinatorConfig.Builder builder = CoordinatorConfig.builder().load(PROPERTIES);
    options.forEach(builder::set);
    ClusterConfig cluster = builder.build().clusterConfig();
    assertThat(cluster.enabled()).isTrue();
    assertThat(cluster.advertisedUrl()).isEqualTo("http://10.42.0.7:9101");
    assertThat(cluster.instanceId()).contains("lance-commit-coordinator-7d9f-x2x4q");

    // an IPv6 pod IP is bracketed; LCC_PORT and an explicit URL win
    assertThat(options(runEntrypoint(bin, recorded, Map.of("LCC_CLUSTER_ENABLED", "true", "LCC_POD_IP", "fd00::7",
        "LCC_PORT", "9200")))).containsEntry("cluster.advertised-url", "http://[fd00::7]:9200");
    assertThat(options(runEntrypoint(bin, recorded, Map.of("LCC_CLUSTER_ENABLED", "true", "LCC_POD_IP", "10.42.0.7",
        "LCC_CLUSTER_ADVERTISED_URL", "http://coordinator-0.peers:9101"))))
        .containsEntry("cluster.advertised-url", "http://coordinator-0.peers:9101");
    // without LCC_CLUSTER_ENABLED nothing of the cluster is passed: a single coordinator
    assertThat(options(runEntrypoint(bin, recorded, Map.of("LCC_POD_IP", "10.42.0.7"))))
        .doesNotContainKeys("cluster.enabled", "cluster.advertised-url", "cluster.secret");
  }

  private List<String> runEntrypoint(Path bin, Path recorded, Map<String, String> env) throws Exception {
    Files.deleteIfExists(recorded);
    ProcessBuilder builder = new ProcessBuilder("sh", DEPLOY.resolve("container/entrypoint.sh").toString())
        .redirectErrorStream(true)
        .redirectOutput(work.resolve("entrypoint.log").toFile());
    builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    builder.environment().put("ARGS_FILE", recorded.toString());
    builder.environment().put("LCC_CONFIG", PROPERTIES.toString());
    builder.environment().putAll(exampleSecrets());
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(Files.readString(work.resolve("entrypoint.log"))).isZero();
    return Files.readAllLines(recorded);
  }

  /** The coordinator's options among java's arguments: every --key value pair after -jar's jar. */
  private static Map<String, String> options(List<String> args) {
    List<String> after = new ArrayList<>(args.subList(args.indexOf("-jar") + 2, args.size()));
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < after.size(); i += 2) {
      assertThat(after.get(i)).startsWith("--");
      options.put(after.get(i).substring(2), after.get(i + 1));
    }
    options.remove("config");
    return options;
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
      } else if (name.equals("LCC_CLUSTER_SECRET")) {
        options.put("cluster.secret", value);
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
