package dev.lancecommit.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitEventTest {

  @Test
  void idIsTableUuidColonVersion() {
    CommitEvent a = SampleEvents.append(List.of("ns", "t"), "uuid-1", 7).build();
    CommitEvent b = SampleEvents.append(List.of("ns", "t"), "uuid-1", 7).transactionUuid("other").build();

    assertThat(a.id()).isEqualTo("uuid-1:7");
    assertThat(b.id()).isEqualTo(a.id());
    assertThat(SampleEvents.append(List.of("ns", "t"), "uuid-1", 8).build().id()).isEqualTo("uuid-1:8");
  }

  @Test
  void namespaceIsAllPartsButLast() {
    CommitEvent nested = SampleEvents.append(List.of("a", "b", "t"), "u", 1).build();
    CommitEvent root = SampleEvents.append(List.of("t"), "u", 1).build();

    assertThat(nested.namespace()).containsExactly("a", "b");
    assertThat(nested.tableName()).isEqualTo("t");
    assertThat(nested.tableKey()).isEqualTo("a$b$t");
    assertThat(root.namespace()).isEmpty();
    assertThat(root.tableKey()).isEqualTo("t");
  }

  @Test
  void tableIdIsCopied() {
    List<String> id = new ArrayList<>(List.of("ns", "t"));
    CommitEvent event = SampleEvents.append(id, "u", 1).build();
    id.set(1, "changed");

    assertThat(event.tableId()).containsExactly("ns", "t");
    assertThatThrownBy(() -> event.tableId().add("x")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void blankActorBecomesAnonymous() {
    assertThat(SampleEvents.append(List.of("t"), "u", 1).actor(null).build().actor()).isEqualTo("anonymous");
    assertThat(SampleEvents.append(List.of("t"), "u", 1).actor(" ").build().actor())
        .isEqualTo(CommitEvent.ANONYMOUS);
  }

  @Test
  void rejectsBadFieldsNamingThem() {
    assertThatThrownBy(() -> SampleEvents.append(List.of(), "u", 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tableId");
    assertThatThrownBy(() -> SampleEvents.append(List.of("ns", ""), "u", 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tableId");
    assertThatThrownBy(() -> SampleEvents.append(List.of("t"), " ", 1).build())
        .hasMessageContaining("tableUuid");
    assertThatThrownBy(
            () ->
                CommitEvent.builder()
                    .tableId(List.of("t"))
                    .tableUuid("u")
                    .location("/x")
                    .readVersion(0)
                    .operation("Append")
                    .manifestPath("/x/_versions/1.manifest")
                    .committedAt(java.time.Instant.EPOCH)
                    .build())
        .hasMessageContaining("version must be >= 0");
    assertThatThrownBy(() -> SampleEvents.append(List.of("t"), "u", 1).rowsRemoved(-1).build())
        .hasMessageContaining("rowsRemoved");
    assertThatThrownBy(() -> SampleEvents.append(List.of("t"), "u", 1).operation("").build())
        .hasMessageContaining("operation");
    assertThatThrownBy(() -> SampleEvents.append(List.of("t"), "u", 1).committedAt(null).build())
        .hasMessageContaining("committedAt");
    assertThatThrownBy(() -> TraceContext.of("4bf92f3577b34da6", null)).hasMessageContaining("traceparent");
    assertThatThrownBy(() -> TraceContext.of("00-" + "0".repeat(32) + "-00f067aa0ba902b7-01", null))
        .hasMessageContaining("traceparent");
  }

  @Test
  void toBuilderKeepsEveryField() {
    CommitEvent event =
        SampleEvents.append(List.of("ns", "t"), "u", 3)
            .operation("Delete")
            .fragmentsRemoved(2)
            .rowsRemoved(5)
            .governed(false)
            .trace(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v"))
            .build();

    assertThat(event.toBuilder().build()).isEqualTo(event);
  }
}
