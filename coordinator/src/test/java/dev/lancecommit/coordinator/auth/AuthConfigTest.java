package dev.lancecommit.coordinator.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuthConfigTest {

  @Test
  void disabledByDefaultAndOpen() {
    AuthConfig config = AuthConfig.parse(Map.of("port", "9101"));
    assertThat(config.enabled()).isFalse();
    AccessControl access = config.accessControl();
    assertThat(access.isEnabled()).isFalse();
    assertThat(access.authenticate(Credentials.none())).isEqualTo(Principal.ANONYMOUS);
    assertThat(access.allows(Principal.ANONYMOUS, Permission.ADMIN, List.of("any", "thing"))).isTrue();
  }

  @Test
  void principalsSecretsAndGrantsFromKeys() {
    AuthConfig config = AuthConfig.parse(Map.of(
        "auth.enabled", "TRUE",
        "auth.principals.etl.api-key", "key-etl",
        "auth.principals.etl.token", "tok-etl",
        "auth.principals.bi.team.token", "tok-bi",
        "auth.grants.etl", "sales:commit, sales:write",
        "auth.grants.bi.team", "sales$orders:read,$:read"));
    assertThat(config.enabled()).isTrue();
    assertThat(config.principals()).containsExactly("bi.team", "etl");
    assertThat(config.grants().get("etl")).containsExactly(
        new Grant(List.of("sales"), Permission.COMMIT), new Grant(List.of("sales"), Permission.WRITE));
    assertThat(config.grants().get("bi.team")).containsExactly(
        new Grant(List.of("sales", "orders"), Permission.READ), new Grant(List.of(), Permission.READ));

    AccessControl access = config.accessControl();
    Principal etl = access.authenticate(new Credentials(Optional.of("key-etl"), Optional.empty()));
    assertThat(etl.name()).isEqualTo("etl");
    assertThat(access.authenticate(new Credentials(Optional.empty(), Optional.of("tok-etl")))).isEqualTo(etl);
    assertThat(access.authenticate(new Credentials(Optional.empty(), Optional.of("tok-bi"))).name())
        .isEqualTo("bi.team");
    assertThat(access.allows(etl, Permission.COMMIT, List.of("sales", "t"))).isTrue();
    assertThat(access.allows(etl, Permission.ADMIN, List.of("sales", "t"))).isFalse();
  }

  @Test
  void mistakesAreRefusedWithTheKeyNamed() {
    assertRefused(Map.of("auth.enable", "true"), "auth.enable");
    assertRefused(Map.of("auth.principals.x.password", "p"), "auth.principals.x.password");
    assertRefused(Map.of("auth.enabled", "yes", "auth.principals.x.token", "t"), "auth.enabled");
    assertRefused(Map.of("auth.principals.x.token", "t", "auth.grants.y", "a:read"), "auth.grants.y");
    assertRefused(Map.of("auth.principals.x.token", "t", "auth.grants.x", "a:own"), "auth.grants.x");
    assertRefused(Map.of("auth.principals.x.token", "t", "auth.grants.x", "a"), "auth.grants.x");
    assertRefused(Map.of("auth.principals.x.token", "t", "auth.grants.x", "a$$b:read"), "auth.grants.x");
    assertRefused(Map.of("auth.enabled", "true"), "no principal");
    assertRefused(Map.of("auth.principals.x.token", " "), "empty");
    assertRefused(Map.of("auth.principals.x.token", "same", "auth.principals.y.token", "same"), "same token");
    assertRefused(Map.of("auth.principals.bad name.token", "t"), "auth.principals.bad name.token");
  }

  @Test
  void anApiKeyIsNotATokenAndViceVersa() {
    AccessControl access = AuthConfig.parse(Map.of("auth.enabled", "true",
        "auth.principals.a.api-key", "secret-a", "auth.principals.b.token", "secret-b")).accessControl();
    assertThatThrownBy(() -> access.authenticate(new Credentials(Optional.empty(), Optional.of("secret-a"))))
        .isInstanceOf(UnauthenticatedException.class);
    assertThatThrownBy(() -> access.authenticate(new Credentials(Optional.of("secret-b"), Optional.empty())))
        .isInstanceOf(UnauthenticatedException.class);
  }

  @Test
  void keyNamesAreRecognisedForTheCoordinatorConfig() {
    assertThat(AuthConfig.isAuthKey("auth.enabled")).isTrue();
    assertThat(AuthConfig.isAuthKey("auth.principals.etl.api-key")).isTrue();
    assertThat(AuthConfig.isAuthKey("auth.principals.etl.token")).isTrue();
    assertThat(AuthConfig.isAuthKey("auth.grants.etl")).isTrue();
    assertThat(AuthConfig.isAuthKey("auth.grants.")).isFalse();
    assertThat(AuthConfig.isAuthKey("auth.principals.etl")).isFalse();
    assertThat(AuthConfig.isAuthKey("port")).isFalse();
    assertThat(AuthConfig.keys().markdown()).contains("`auth.enabled`", "`auth.grants.<principal>`");
  }

  @Test
  void toStringNeverShowsSecrets() {
    AuthConfig config = AuthConfig.parse(Map.of("auth.enabled", "true", "auth.principals.a.token", "very-secret"));
    assertThat(config.toString()).doesNotContain("very-secret");
    assertThat(new Credentials(Optional.of("k-123"), Optional.of("t-456")).toString())
        .doesNotContain("k-123").doesNotContain("t-456");
  }

  private static void assertRefused(Map<String, String> properties, String mentioned) {
    assertThatThrownBy(() -> AuthConfig.parse(properties))
        .as("%s", properties)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(mentioned);
  }
}
