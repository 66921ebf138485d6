package dev.lancecommit.coordinator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectTail;
import dev.lancecommit.testing.ForwardingObjectStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics wrapper around every store of the service: it must pass each call on as the call it is, or the
 * service silently does more than it asks (a footer read becoming a read of the whole data file).
 */
class ObservedObjectStoreTest {
  @TempDir
  Path root;

  @Test
  void overridesEveryMethodOfTheStoreInterface() {
    List<String> inherited = new ArrayList<>();
    for (Method method : ObjectStore.class.getMethods()) {
      if (Modifier.isStatic(method.getModifiers())) {
        continue;
      }
      try {
        ObservedObjectStore.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
      } catch (NoSuchMethodException e) {
        inherited.add(method.getName());
      }
    }
    assertThat(inherited).as("ObjectStore methods the wrapper leaves to the interface's defaults").isEmpty();
  }

  @Test
  void aTailOrRangeReadStaysARangedReadAndIsTimed() {
    List<String> calls = new ArrayList<>();
    ObjectStore delegate = new ForwardingObjectStore(new LocalObjectStore(root)) {
      @Override
      public Optional<byte[]> get(String key) {
        calls.add("get");
        return super.get(key);
      }

      @Override
      public Optional<ObjectTail> getTail(String key, int maxBytes) {
        calls.add("getTail");
        return super.getTail(key, maxBytes);
      }

      @Override
      public Optional<byte[]> getRange(String key, long offset, int length) {
        calls.add("getRange");
        return super.getRange(key, offset, length);
      }
    };
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ObservedObjectStore store = new ObservedObjectStore(delegate, registry,
        OpenTelemetry.noop().getTracer("test"));
    store.put("data/f.lance", "0123456789".getBytes(StandardCharsets.UTF_8));

    ObjectTail tail = store.getTail("data/f.lance", 4).orElseThrow();
    byte[] range = store.getRange("data/f.lance", 2, 3).orElseThrow();

    assertThat(new String(tail.bytes(), StandardCharsets.UTF_8)).isEqualTo("6789");
    assertThat(tail.size()).isEqualTo(10);
    assertThat(new String(range, StandardCharsets.UTF_8)).isEqualTo("234");
    assertThat(calls).containsExactly("getTail", "getRange");
    assertThat(registry.get(ObservedObjectStore.DURATION).tag("operation", "get_range").tag("outcome", "ok")
        .timer().count()).isEqualTo(2);
  }
}
