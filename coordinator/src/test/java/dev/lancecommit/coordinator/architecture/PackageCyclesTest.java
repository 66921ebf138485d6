package dev.lancecommit.coordinator.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.lancecommit.coordinator.architecture.cyclea.CycleA;
import dev.lancecommit.coordinator.architecture.cycleb.CycleB;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's packages depend on each other one way: storage at the bottom, the table seam on it, commit,
 * namespace and publication above, http and the wiring at the top. A cycle anywhere fails here, naming the classes
 * that close it.
 */
class PackageCyclesTest {
  private static final String ROOT = "dev.lancecommit.coordinator";

  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
      .importPackages(ROOT);

  @Test
  void theCoordinatorsPackagesHaveNoCycles() {
    // One slice per package, the root package (wiring) included: "(**)" would leave the root's classes out.
    slices().assignedFrom(PackageSlices.under(ROOT)).should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void aCycleIsFound() {
    // The rule is not vacuous: two packages that use each other fail it.
    JavaClasses withCycle = new ClassFileImporter().importClasses(CycleA.class, CycleB.class);
    EvaluationResult result = slices().assignedFrom(PackageSlices.under("dev.lancecommit.coordinator.architecture"))
        .should().beFreeOfCycles().evaluate(withCycle);
    assertThat(result.hasViolation()).isTrue();
  }

  @Test
  void everyPackageIsChecked() {
    assertThat(MAIN.stream().map(c -> PackageSlices.under(ROOT).getIdentifierOf(c)).distinct().count())
        .as("root, auth, commit, credentials, http, namespace, publication, storage, table")
        .isGreaterThanOrEqualTo(9);
  }
}
