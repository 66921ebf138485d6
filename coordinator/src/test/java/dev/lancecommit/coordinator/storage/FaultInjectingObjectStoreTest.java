package dev.lancecommit.coordinator.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fault-injection fixture itself, on a real local store. */
class FaultInjectingObjectStoreTest {
  @TempDir
  Path root;

  private LocalObjectStore real;
  private FaultInjectingObjectStore store;

  @BeforeEach
  void open() {
    real = new LocalObjectStore(root);
    store = new FaultInjectingObjectStore(real);
  }

  @Test
  void aBeforeFaultFailsTheCallWithoutReachingTheStore() {
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, FaultInjectingObjectStore.unavailable());

    assertThatThrownBy(() -> store.putIfAbsent("k", "v".getBytes(UTF_8)))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(real.get("k")).isEmpty();

    store.putIfAbsent("k", "v".getBytes(UTF_8));
    assertThat(real.get("k")).isPresent();
    assertThat(store.calls(Call.PUT_IF_ABSENT)).isEqualTo(2);
  }

  @Test
  void anAfterFaultLetsTheWriteLandButLosesTheAnswer() {
    store.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, FaultInjectingObjectStore.outcomeUnknown());

    assertThatThrownBy(() -> store.putIfAbsent("k", "landed".getBytes(UTF_8)))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(real.get("k")).hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isEqualTo("landed"));
    assertThatThrownBy(() -> store.putIfAbsent("k", "again".getBytes(UTF_8)))
        .isInstanceOf(ObjectAlreadyExistsException.class);
  }

  @Test
  void faultsCountDownAndCanTargetKeys() {
    store.failNext(Call.GET, 2, When.BEFORE, key -> key.endsWith(".manifest"),
        FaultInjectingObjectStore.unavailable());
    real.put("a.manifest", new byte[1]);
    real.put("a.txn", new byte[1]);

    assertThat(store.get("a.txn")).isPresent();
    assertThatThrownBy(() -> store.get("a.manifest")).isInstanceOf(StoreUnavailableException.class);
    assertThat(store.pendingFaults(Call.GET)).isEqualTo(1);
    assertThatThrownBy(() -> store.get("a.manifest")).isInstanceOf(StoreUnavailableException.class);
    assertThat(store.get("a.manifest")).isPresent();
    assertThat(store.pendingFaults(Call.GET)).isZero();
  }

  @Test
  void clearedFaultsNoLongerFire() {
    store.failNext(Call.LIST, 5, When.BEFORE, FaultInjectingObjectStore.unavailable());
    store.clearFaults();
    assertThat(store.list("")).isEmpty();
  }
}
