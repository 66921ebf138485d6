package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class IdentifiersTest {

  @Test
  void acceptsOrdinaryNames() {
    Identifiers.validate(List.of("sales", "eu-west", "orders.v2", "Ünïcödé", "a b", "x".repeat(249)));
    Identifiers.validate(List.of());
  }

  @Test
  void refusesEachForbiddenShape() {
    for (String bad : List.of("", "_hidden", ".dot", "a/b", "a$b", "tab\there", "x".repeat(256))) {
      assertThatThrownBy(() -> Identifiers.validate(List.of("ns", bad)))
          .as("part '%s'", bad)
          .isInstanceOf(InvalidCatalogInputException.class);
    }
  }

  @Test
  void refusesPartsTooLongOnceEncoded() {
    // 28 three-byte characters are 252 bytes, 756 characters once percent-encoded
    String cjk = "表".repeat(28);
    assertThatThrownBy(() -> Identifiers.validate(List.of(cjk)))
        .isInstanceOf(InvalidCatalogInputException.class)
        .hasMessageContaining("percent-encoded");
  }

  @Test
  void encodingIsReversibleAndKeySafe() {
    List<List<String>> ids = List.of(
        List.of("a"),
        List.of("a b", "c%d", "e+f"),
        List.of("ü", "表", "emoji😀", "~tilde-._"),
        List.of("ns", "100%", "%25"));
    for (List<String> id : ids) {
      String encoded = Identifiers.encode(id);
      assertThat(encoded).matches("[A-Za-z0-9._~%/-]+");
      assertThat(encoded.split("/")).hasSize(id.size());
      assertThat(Identifiers.decode(encoded)).isEqualTo(id);
    }
    assertThat(Identifiers.encode(List.of("a b", "ü"))).isEqualTo("a%20b/%C3%BC");
    assertThat(Identifiers.encode(List.of())).isEmpty();
  }

  @Test
  void distinctIdsEncodeDistinctly() {
    assertThat(Identifiers.encode(List.of("a%2Fb"))).isNotEqualTo(Identifiers.encode(List.of("a", "b")));
    assertThat(Identifiers.encode(List.of("%20"))).isNotEqualTo(Identifiers.encode(List.of(" ")));
  }

  @Test
  void displayUsesTheCanonicalDelimiter() {
    assertThat(Identifiers.display(List.of("a", "b"))).isEqualTo("'a$b'");
    assertThat(Identifiers.display(List.of())).isEqualTo("'$'");
  }
}
