package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate, in PEM (certificate and PKCS#8 key, as Netty and Go read them): for
 * the driver's CSI-Addons TLS port, whose only client (the operator) pins it from the Secret, and
 * for the snapshot-metadata sidecars, whose clients find it in the SnapshotMetadataService.
 */
public record SelfSignedCertificate(String certificatePem, String privateKeyPem) {

  public static SelfSignedCertificate create(
      String commonName, List<String> dnsNames, Duration validity) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048, new SecureRandom());
      KeyPair keys = generator.generateKeyPair();
      Instant now = Instant.now();
      X500Name subject = new X500Name("CN=" + commonName);
      JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              subject,
              new BigInteger(64, new SecureRandom()),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(validity)),
              subject,
              keys.getPublic());
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              dnsNames.stream()
                  .map(n -> new GeneralName(GeneralName.dNSName, n))
                  .toArray(GeneralName[]::new)));
      var certificate =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
      return new SelfSignedCertificate(
          pem(certificate), pem(new JcaPKCS8Generator(keys.getPrivate(), null)));
    } catch (GeneralSecurityException
        | IOException
        | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException("cannot create the TLS certificate: " + e.getMessage(), e);
    }
  }

  /** A {@code kubernetes.io/tls} Secret holding this certificate and its key. */
  public Secret tlsSecret(String name, String namespace, Map<String, String> labels) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .withLabels(labels)
        .endMetadata()
        .withType("kubernetes.io/tls")
        .withStringData(Map.of("tls.crt", certificatePem, "tls.key", privateKeyPem))
        .build();
  }

  private static String pem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }
}
