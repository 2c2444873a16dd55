// gpu.binary ops as tile-opt prints them (format=isa, format=bin, and format=bin with keep-isa), for
// extract-ptx.test.
module attributes {gpu.container_module} {
  gpu.binary @first_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {O = 3 : i32}, assembly = "//\0A.version 8.0\0A.target sm_90a\0A\09// a \22quoted\22 name, a back\\slash\0A.visible .entry first_kernel()\0A{\0A\09ret;\0A}\0A">]
  gpu.binary @cubin_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {O = 3 : i32}, bin = "\7FELF\02\01\01A\08\00\00">]
  gpu.binary @second_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {O = 3 : i32}, assembly = "//\0A.version 8.0\0A.target sm_80\0A.visible .entry second_kernel()\0A{\0A\09ret;\0A}\0A">]
  gpu.binary @kept_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {isa = "//\0A.version 8.0\0A.target sm_80\0A.visible .entry kept_kernel()\0A{\0A\09ret;\0A}\0A"}, bin = "\7FELF\02\01\01A\08\00\00">]
}
