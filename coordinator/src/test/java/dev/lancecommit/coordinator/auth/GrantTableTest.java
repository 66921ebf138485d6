package dev.lancecommit.coordinator.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GrantTableTest {
  private static final Principal ANA = new Principal("ana");
  private static final Principal BOB = new Principal("bob");
  private static final Principal ROOT = new Principal("root");

  private final GrantTable grants = new GrantTable(Map.of(
      "ana", List.of(Grant.parse("sales:commit"), Grant.parse("hr$payroll:read")),
      "bob", List.of(Grant.parse("sales$orders:admin")),
      "root", List.of(Grant.parse("$:admin"))));

  @Test
  void aGrantCoversItsResourceAndEverythingBelow() {
    assertThat(grants.allows(ANA, Permission.COMMIT, List.of("sales"))).isTrue();
    assertThat(grants.allows(ANA, Permission.COMMIT, List.of("sales", "eu", "orders"))).isTrue();
    assertThat(grants.allows(ANA, Permission.COMMIT, List.of("salesforce", "t"))).isFalse();
    assertThat(grants.allows(ANA, Permission.COMMIT, List.of())).isFalse();
    assertThat(grants.allows(ANA, Permission.READ, List.of("hr", "payroll"))).isTrue();
    assertThat(grants.allows(ANA, Permission.READ, List.of("hr", "people"))).isFalse();
    assertThat(grants.allows(ROOT, Permission.ADMIN, List.of("anything", "at", "all"))).isTrue();
    assertThat(grants.allows(new Principal("nobody"), Permission.READ, List.of("sales"))).isFalse();
  }

  @Test
  void permissionsImplyOnlyWhatTheyShould() {
    assertThat(grants.allows(ANA, Permission.READ, List.of("sales", "t"))).isTrue();
    assertThat(grants.allows(ANA, Permission.WRITE, List.of("sales", "t"))).isFalse();
    assertThat(grants.allows(ANA, Permission.ADMIN, List.of("sales", "t"))).isFalse();
    assertThat(grants.allows(ANA, Permission.COMMIT, List.of("hr", "payroll"))).isFalse();
    for (Permission p : Permission.values()) {
      assertThat(grants.allows(BOB, p, List.of("sales", "orders"))).as("%s", p).isTrue();
      assertThat(Permission.ADMIN.implies(p)).isTrue();
      assertThat(p.implies(Permission.READ)).isTrue();
    }
    assertThat(Permission.WRITE.implies(Permission.COMMIT)).isFalse();
    assertThat(Permission.COMMIT.implies(Permission.WRITE)).isFalse();
  }

  @Test
  void visibilityReachesUpToNavigateAndDownFromTheGrant() {
    assertThat(grants.canSee(BOB, List.of())).isTrue();
    assertThat(grants.canSee(BOB, List.of("sales"))).isTrue();
    assertThat(grants.canSee(BOB, List.of("sales", "orders"))).isTrue();
    assertThat(grants.canSee(BOB, List.of("sales", "orders", "x"))).isTrue();
    assertThat(grants.canSee(BOB, List.of("sales", "returns"))).isFalse();
    assertThat(grants.canSee(BOB, List.of("hr"))).isFalse();
    // seeing a namespace on the way down is not reading it
    assertThat(grants.allows(BOB, Permission.READ, List.of("sales"))).isFalse();
  }

  @Test
  void grantSyntax() {
    assertThat(Grant.parse(" a$b : Write ").toString()).isEqualTo("a$b:write");
    assertThat(Grant.parse("$:read").resource()).isEmpty();
    assertThat(Grant.parse("ns:with:colon:read").resource()).containsExactly("ns:with:colon");
    for (String bad : List.of("", "read", ":read", "a:", "a:root", "a$:read", "$a:read")) {
      assertThatThrownBy(() -> Grant.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
