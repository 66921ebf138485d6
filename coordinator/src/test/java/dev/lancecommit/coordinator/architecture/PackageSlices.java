package dev.lancecommit.coordinator.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/** One slice per package directly under a root package, and one for the root package itself. */
final class PackageSlices implements SliceAssignment {
  private final String root;

  private PackageSlices(String root) {
    this.root = root;
  }

  static PackageSlices under(String root) {
    return new PackageSlices(root);
  }

  @Override
  public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
    String name = javaClass.getPackageName();
    if (name.equals(root)) {
      return SliceIdentifier.of("(root)");
    }
    if (!name.startsWith(root + ".")) {
      return SliceIdentifier.ignore();
    }
    String below = name.substring(root.length() + 1);
    int dot = below.indexOf('.');
    return SliceIdentifier.of(dot < 0 ? below : below.substring(0, dot));
  }

  @Override
  public String getDescription() {
    return "the packages of " + root;
  }
}
